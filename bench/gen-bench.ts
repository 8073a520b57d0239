import { printTable } from "./table.js";

export async function run(): Promise<void> {
  printTable("gen-bench", ["status"], [["not measured yet"]]);
}
