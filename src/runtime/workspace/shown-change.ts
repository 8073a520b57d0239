/**
 * What a file tool's approval showed, handed by the executor to that one call's run (through its tool
 * context) so the run writes only if it would still make that change. A module of its own so that the
 * tool context and the file changes can both name it without importing each other.
 */

/** The change a call's approval showed: the call (as `FileChange.call`) and what the change would do, hashed. */
export interface ShownChange {
  call: string;
  fingerprint: string;
}
