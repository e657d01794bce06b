// Calls to /api/v1 with the user's key. The key lives in this browser's localStorage only.

const KEY_STORAGE = 'quarry.apiKey';

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export function storedKey() {
  try {
    return localStorage.getItem(KEY_STORAGE) || null;
  } catch {
    return null;
  }
}

export function storeKey(key) {
  try {
    if (key) localStorage.setItem(KEY_STORAGE, key);
    else localStorage.removeItem(KEY_STORAGE);
  } catch {
    // Storage refused (private mode): the key lasts as long as the page.
  }
}

/** `path` under /api/v1 with `query` (undefined values left out), as a URL of this origin. */
export function apiUrl(path, query = {}) {
  const url = new URL(`/api/v1${path}`, location.origin);
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  return url;
}

/**
 * `get(path, query)`: the JSON answer, or an ApiError. Answers carry an ETag and are revalidated on
 * every call (`no-cache`), so a refetch after a block is never served stale by the browser's cache.
 */
export function createApi({ key, onUnauthorized }) {
  return {
    async get(path, query) {
      const current = key();
      if (!current) throw new ApiError(401, { detail: 'no API key' });
      const res = await fetch(apiUrl(path, query), { headers: { authorization: `Bearer ${current}`, accept: 'application/json' }, cache: 'no-cache' });
      if (res.ok) return res.json();
      const problem = await res.json().catch(() => null);
      if (res.status === 401) onUnauthorized();
      throw new ApiError(res.status, problem);
    },
  };
}
