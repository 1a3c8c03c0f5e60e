// The explorer pages' one entry script (DESIGN §5.10): the header's API key form, then the
// module of the page named by <body data-page>, loaded on demand so a page carries only its
// own code (the build preloads it beside this file). Data comes only through the client SDK;
// amounts are shown from their decimal strings; `data-ready` marks the first complete render.
import { explain } from './explain.js';
import { KEY_STORAGE } from './key.js';
import { $, el, show } from './dom.js';

function header(): void {
  const input = $<HTMLInputElement>('#api-key');
  input.value = sessionStorage.getItem(KEY_STORAGE) ?? '';
  $('#key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if (input.value.trim()) sessionStorage.setItem(KEY_STORAGE, input.value.trim());
    else sessionStorage.removeItem(KEY_STORAGE);
    location.reload();
  });
}

async function run(page: string | undefined, main: HTMLElement): Promise<void> {
  try {
    if (page === 'vaults') await (await import('./pages/home.js')).homePage(main);
    else if (page === 'vault') await (await import('./pages/vault.js')).vaultPage(main);
    else if (page === 'wallet') await (await import('./pages/wallet.js')).walletPage(main);
    else if (page === 'status') await (await import('./pages/status.js')).statusPage(main);
    else (await import('./pages/docs.js')).docsPage();
  } catch (err) {
    show(main, el('p', { class: 'error', role: 'alert' }, explain(err)));
  }
}

header();
void run(document.body.dataset.page, $('#main')).finally(() => document.body.setAttribute('data-ready', 'true'));
