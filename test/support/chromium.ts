/** The Chromium the browser tests drive through playwright-core: QUARRY_CHROMIUM, else the distribution's. */
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The executable's path, or undefined when none is installed. */
export function findChromium(): string | undefined {
  const chosen = process.env.QUARRY_CHROMIUM;
  if (chosen) return existsSync(chosen) ? chosen : undefined;
  return CANDIDATES.find((file) => existsSync(file));
}
