// A view of the past (DESIGN §11.6) as the server gets it from ReadModel.at: cheap to make for
// any instant. A vault's pages (detail, definition, allocations, by slug) come from that vault's
// resident series (pastVaults.ts) and a wallet's positions from items replayed on the pool
// (pastPositions.ts); neither builds the world at the instant. Every other route asks the full
// view (a read model over the world cut at the instant, whose aggregate pages are built on first
// read), made on first use and shared by the views of the same instant.
import { isoSeconds } from '../../model/format/numbers.js';
import type { World } from '../../model/world.js';
import { type AsOfFrame, buildPageOf, type Page } from './page.js';
import type { PastVaults } from './pastVaults.js';
import type { PositionSource } from './positionSource.js';
import type { ReadModel } from './readModel.js';
import { walletOf } from './walletIndex.js';
import { positionAnswer, positionsAnswer } from './walletPositions.js';

/** What the views of one published snapshot share. */
export interface PastShared {
  generation: number;
  refreshedAt: string;
  refreshedAtS: number;
  /** the published (latest) world */
  world: World;
  vaults: PastVaults;
  /** the envelope's bytes around the data and the instant (asOfFrame of refreshedAt) */
  frame: AsOfFrame;
  /** a view's pages now hold `bytes` (the views are kept within a byte budget) */
  grew(view: PastView, bytes: number): void;
  /** the position source of the view at `t` */
  /** the position source of the view at `t` (`kept`: whether the view is kept now) */
  positionsAt(t: number, kept: () => boolean): PositionSource;
  stats(): PastStats;
  /** a new full view of `view`'s instant (its positions from `view.positionSource`); kept by the view until released */
  full(view: PastView): ReadModel;
}

/** Counts of the caches behind views of the past (pastPositions.ts and this file's). */
export interface PastStats {
  /** position items valued and their bytes, replay states kept, replay tasks made and rows they stepped */
  items: number;
  itemBytes: number;
  states: number;
  tasks: number;
  rowsReplayed: number;
  /** blocks of vault metrics JSON kept (by vault and block of snapshots), and the bytes of the pages the views kept hold */
  details: number;
  pageBytes: number;
  /** views kept, and those of them holding a full view */
  views: number;
  fullViews: number;
}

type Q<M extends keyof ReadModel> = ReadModel[M] extends (...args: infer A) => unknown ? A : never;
type R<M extends keyof ReadModel> = ReadModel[M] extends (...args: never[]) => infer T ? T : never;

const SLUG_META = (count: number) => ({ count, limit: null, next_cursor: null, partial_errors: null });

/** A class, not a closure per method: a view is made per instant asked for, often per request. */
export class PastView implements ReadModel {
  readonly generation: number;
  readonly refreshedAt: string;
  readonly refreshedAtS: number;
  readonly id: string;
  readonly asOf: string | null;
  readonly t: number;
  readonly echo: boolean;
  /** its key among the views of its read model (an echoing view: t; a walk's: −t − 1) */
  readonly key: number;
  /** whether the read model keeps it (then it keeps the pages it makes: its instant may be asked again) */
  kept = false;
  readonly #shared: PastShared;
  #src: PositionSource | null = null;
  #fullModel: ReadModel | null = null;
  /** pages made, by part (detail, definition, allocations, slug) then vault id or slug */
  readonly #pages: Map<string, Page>[] = [];
  #bytes = 0;

  constructor(shared: PastShared, t: number, echo: boolean) {
    this.#shared = shared;
    this.t = t;
    this.echo = echo;
    this.key = echo ? t : -t - 1;
    this.generation = shared.generation;
    this.refreshedAt = shared.refreshedAt;
    this.refreshedAtS = shared.refreshedAtS;
    this.asOf = echo ? isoSeconds(t) : null;
    // the id createReadModel gives the full view (its answers' ETag seed)
    this.id = `${shared.generation}:${shared.refreshedAt}${this.asOf !== null ? `@${this.asOf}` : `#${t}`}`;
  }

  /** the positions of this instant (the full view answers from the same items) */
  get positionSource(): PositionSource {
    this.#src ??= this.#shared.positionsAt(this.t, () => this.kept);
    return this.#src;
  }

  get #full(): ReadModel {
    this.#fullModel ??= this.#shared.full(this);
    return this.#fullModel;
  }

  /**
   * Drops the pages made (the view left the cache of views): a request still holding the view
   * makes them again if it asks. Its positions stay: a request awaiting them reads them next. A
   * dropped view left in the old generation must not keep young pages alive through scavenges.
   */
  releasePages(): void {
    this.kept = false;
    this.#pages.length = 0;
    this.#bytes = 0;
  }

  /** Drops the full view (a bound on how many are kept); made again from the same positions when next asked. */
  releaseFull(): void {
    this.#fullModel = null;
  }

  /**
   * The view's page of `part` and `key` (a vault id or slug): made once while the view is kept
   * (its instant asked again gets the same Page, and so its prepared wire forms), else made for
   * the one answer. By part then key: a key made per request (a string concatenation) would cost
   * a flatten and a hash per lookup.
   */
  #page(part: number, key: string, data: () => { json: string; count?: number } | Page | undefined): Page | undefined {
    const made = (): Page | undefined => {
      const d = data();
      if (d === undefined) return undefined;
      const p = 'prefix' in d ? d : buildPageOf(d.json, d.count === undefined ? null : SLUG_META(d.count), this.refreshedAt, this.asOf);
      p.past = true;
      return p;
    };
    // a view not kept (its instant asked once) answers one request: nothing to remember
    if (!this.kept) return made();
    const pages = (this.#pages[part] ??= new Map());
    let page = pages.get(key);
    if (page === undefined) {
      page = made();
      if (page === undefined) return undefined;
      pages.set(key, page);
      this.#bytes += page.prefix.length + 128;
      this.#shared.grew(this, this.#bytes);
    }
    return page;
  }

  // ---- one vault at the instant: its series, not the world ----
  vault(id: string, part: 'detail' | 'definition' | 'allocations'): Page | undefined {
    const v = this.#shared.vaults;
    const k = part === 'detail' ? 0 : part === 'definition' ? 1 : 2;
    return this.#page(k, id, () => {
      // the detail (the route asked most) echoing the instant: copied from prepared bytes
      if (k === 0 && this.asOf !== null) return v.detailPage(id, this.t, this.asOf, this.#shared.frame);
      const json = k === 0 ? v.detail(id, this.t) : k === 1 ? v.definition(id, this.t) : v.allocations(id, this.t);
      return json === undefined ? undefined : { json };
    });
  }
  slug(slug: string): Page | undefined {
    return this.#page(3, slug, () => this.#shared.vaults.slug(slug, this.t));
  }
  hasVault(id: string): boolean {
    const i = this.#shared.vaults.indexAt(id, this.t);
    return i !== null && i >= 0;
  }

  // ---- one wallet at the instant: its items, replayed on the pool ----
  walletReady(wallet: string): undefined | Promise<void> {
    const w = walletOf(this.#shared.world, wallet);
    return w < 0 ? undefined : this.positionSource.ready(w);
  }
  positions(...[wallet, q]: Q<'positions'>): R<'positions'> {
    return positionsAnswer(this.#shared.world, this.positionSource, wallet, q);
  }
  position(wallet: string, vaultId: string): Buffer | { missing: string } {
    return positionAnswer(this.#shared.world, this.positionSource, wallet, vaultId);
  }

  pastStats(): PastStats {
    return this.#shared.stats();
  }

  // ---- everything else: the full view ----
  get dataEnd(): number {
    return this.#full.dataEnd;
  }
  at(...a: Q<'at'>): R<'at'> {
    return this.#full.at(...a);
  }
  pin(): R<'pin'> {
    return this.#full.pin();
  }
  vaultList(...a: Q<'vaultList'>): R<'vaultList'> {
    return this.#full.vaultList(...a);
  }
  featured(): R<'featured'> {
    return this.#full.featured();
  }
  strategies(): R<'strategies'> {
    return this.#full.strategies();
  }
  tvl(...a: Q<'tvl'>): R<'tvl'> {
    return this.#full.tvl(...a);
  }
  tvlData(...a: Q<'tvlData'>): R<'tvlData'> {
    return this.#full.tvlData(...a);
  }
  vaultBounds(...a: Q<'vaultBounds'>): R<'vaultBounds'> {
    return this.#full.vaultBounds(...a);
  }
  vaultWindow(...a: Q<'vaultWindow'>): R<'vaultWindow'> {
    return this.#full.vaultWindow(...a);
  }
  positionSeriesMissing(...a: Q<'positionSeriesMissing'>): R<'positionSeriesMissing'> {
    return this.#full.positionSeriesMissing(...a);
  }
  positionBounds(...a: Q<'positionBounds'>): R<'positionBounds'> {
    return this.#full.positionBounds(...a);
  }
  positionWindow(...a: Q<'positionWindow'>): R<'positionWindow'> {
    return this.#full.positionWindow(...a);
  }
  activity(...a: Q<'activity'>): R<'activity'> {
    return this.#full.activity(...a);
  }
  requests(...a: Q<'requests'>): R<'requests'> {
    return this.#full.requests(...a);
  }
  requestItems(...a: Q<'requestItems'>): R<'requestItems'> {
    return this.#full.requestItems(...a);
  }
  price(...a: Q<'price'>): R<'price'> {
    return this.#full.price(...a);
  }
  priceWindow(...a: Q<'priceWindow'>): R<'priceWindow'> {
    return this.#full.priceWindow(...a);
  }
  chainHeads(): R<'chainHeads'> {
    return this.#full.chainHeads();
  }
  vaultApy(...a: Q<'vaultApy'>): R<'vaultApy'> {
    return this.#full.vaultApy(...a);
  }
  vaultDetailWith(...a: Q<'vaultDetailWith'>): R<'vaultDetailWith'> {
    return this.#full.vaultDetailWith(...a);
  }
  vaultListWith(...a: Q<'vaultListWith'>): R<'vaultListWith'> {
    return this.#full.vaultListWith(...a);
  }
  vaultWindowWith(...a: Q<'vaultWindowWith'>): R<'vaultWindowWith'> {
    return this.#full.vaultWindowWith(...a);
  }
  positionsWith(...a: Q<'positionsWith'>): R<'positionsWith'> {
    return this.#full.positionsWith(...a);
  }
  positionWith(...a: Q<'positionWith'>): R<'positionWith'> {
    return this.#full.positionWith(...a);
  }
  lots(...a: Q<'lots'>): R<'lots'> {
    return this.#full.lots(...a);
  }
}
