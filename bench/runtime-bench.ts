import { printTable } from "./table.js";

export async function run(): Promise<void> {
  printTable("runtime-bench", ["status"], [["not measured yet"]]);
}
