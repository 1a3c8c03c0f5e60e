// `/docs`: the reference itself is static HTML made at build time; this only runs the "try it"
// forms: fill the path and query from the inputs (selects for enums, checkboxes for booleans),
// call this server with the API key of the header, show the answer.
import { KEY_STORAGE } from '../key.js';

export function docsPage(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form.try')) {
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const out = form.querySelector('output')!;
      let path = form.dataset.path!;
      const query = new URLSearchParams();
      for (const input of form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('[data-in]')) {
        const value = input instanceof HTMLInputElement && input.type === 'checkbox' ? (input.checked ? 'true' : '') : input.value.trim();
        if (!value) continue;
        if (input.dataset.in === 'path') path = path.replace(`{${input.name}}`, encodeURIComponent(value));
        else query.set(input.name, value);
      }
      const url = `${path}${query.size > 0 ? `?${query}` : ''}`;
      const key = sessionStorage.getItem(KEY_STORAGE);
      out.textContent = `GET ${url} …`;
      try {
        const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
        const text = await res.text();
        out.dataset.status = String(res.status);
        let pretty = text;
        try {
          pretty = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          // not JSON: shown as it is
        }
        out.textContent = `GET ${url} → ${res.status}\n${pretty.slice(0, 20_000)}`;
      } catch (err) {
        out.textContent = `GET ${url} failed: ${(err as Error).message}`;
      }
    });
  }
}
