/**
 * Keeps the first `limit` items of a stream in name order (UTF-16 code units, not locale) and counts the
 * rest, holding at most twice `limit` items at any time: a directory of any size costs the same memory.
 * Once `limit` items are known, anything that sorts after the last of them is dropped on arrival.
 */
export class FirstInOrder<T extends { name: string }> {
  private items: T[] = [];
  /** Nothing that sorts at or after this can be among the first `limit`. */
  private bound: string | undefined;

  /** @param onDrop told of every item that is not kept, for counts the caller needs. */
  constructor(private readonly limit: number, private readonly onDrop: (item: T) => void) {}

  add(item: T): void {
    if (this.bound !== undefined && item.name >= this.bound) {
      this.onDrop(item);
      return;
    }
    this.items.push(item);
    if (this.items.length >= 2 * this.limit) this.trim();
  }

  /** The kept items, sorted by name. */
  first(): T[] {
    this.trim();
    return this.items;
  }

  private trim(): void {
    this.items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const item of this.items.slice(this.limit)) this.onDrop(item);
    if (this.items.length < this.limit) return;
    this.items.length = this.limit;
    this.bound = this.items[this.limit - 1]?.name;
  }
}
