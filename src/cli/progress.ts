/** A progress bar with rate and ETA for long work on a terminal; one log line per step elsewhere. */
import cliProgress from 'cli-progress';

export interface Progress {
  update(value: number, payload?: Record<string, string | number>): void;
  stop(): void;
}

export function createProgress(label: string, total: number, unit = 'blocks'): Progress {
  if (!process.stderr.isTTY) {
    let lastLog = 0;
    const started = Date.now();
    return {
      update(value) {
        const now = Date.now();
        if (now - lastLog < 5000 && value < total) return;
        lastLog = now;
        const rate = value / Math.max(1, (now - started) / 1000);
        console.error(`${label}: ${value}/${total} ${unit} (${Math.round(rate)}/s)`);
      },
      stop() {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted} {extra}`,
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  bar.start(total, 0, { rate: 0, extra: '' });
  return {
    update(value, payload = {}) {
      const rate = Math.round(value / Math.max(0.001, (Date.now() - started) / 1000));
      bar.update(Math.min(value, total), { rate, extra: '', ...payload });
    },
    stop() {
      bar.stop();
    },
  };
}
