/** The pages visited inside one preview, for Back and Forward (PRV-6). Paths are URL paths on the preview origin. */
export class PreviewHistory {
  private entries: string[];
  private index = 0;

  constructor(first: string) {
    this.entries = [first];
  }

  get current(): string {
    return this.entries[this.index]!;
  }

  get canGoBack(): boolean {
    return this.index > 0;
  }

  get canGoForward(): boolean {
    return this.index < this.entries.length - 1;
  }

  /** A new page: forward entries are dropped, as in a browser. Visiting the current page again adds nothing. */
  push(path: string): void {
    if (path === this.current) return;
    this.entries = [...this.entries.slice(0, this.index + 1), path];
    this.index = this.entries.length - 1;
  }

  back(): string | null {
    if (!this.canGoBack) return null;
    this.index -= 1;
    return this.current;
  }

  forward(): string | null {
    if (!this.canGoForward) return null;
    this.index += 1;
    return this.current;
  }
}
