/**
 * `sigloop/tools`: the built-in tools, for a project's own tools folder. A tool file that says
 * `export { read_file, list_files } from "sigloop/tools";` makes them tools of that project, with the same
 * schemas as in this repository (`npx sigloop gen` reads their declarations and JSDoc, `@default` included).
 * `write_file` and `edit_file` change files, so they are tagged `@destructive`: the agent asks before each
 * call (docs/approval.md).
 */
export { edit_file } from "../tools/edit_file.js";
export { get_time } from "../tools/get_time.js";
export { list_files } from "../tools/list_files.js";
export { read_file } from "../tools/read_file.js";
export { write_file } from "../tools/write_file.js";
