import { printTable } from "./table.js";

export async function run(): Promise<void> {
  printTable("soak", ["status"], [["not measured yet"]]);
}
