/** Types of compiled-sources.js (plain JavaScript: it runs before any TypeScript can). */
export interface CompileOptions {
  /** Top-level folders whose TypeScript is compiled; every other entry is linked as it is. */
  folders: readonly string[];
  /** Leaves a TypeScript file out (neither compiled nor linked). */
  skip?: (file: string) => boolean;
}
export function compileTree(root: string, out: string, options: CompileOptions): Promise<number>;
export function cachedCompiledTree(folders: readonly string[], root?: string): Promise<string | undefined>;
