import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BridgeClient } from '../../src/client/bridgeClient';
import { loadSqlite } from '../../src/server/ground/store/sqlite';
import { tempDir } from '../helpers/bridgeFixture';
import { spawnBridge, type ChildBridge } from '../helpers/childBridge';
import { FaultShim } from '../helpers/faultShim';

/** A child bridge under the LD_PRELOAD fault shim, restartable over the same data dir. */
export class FaultyBridge {
  readonly dataDir = tempDir('sb-faults-');
  child: ChildBridge | undefined;
  client!: BridgeClient;

  private constructor(readonly shim: FaultShim) {}

  /** Undefined where no C compiler is at hand (the suite skips). */
  static create(): FaultyBridge | undefined {
    const shim = FaultShim.build(tempDir('sb-shim-'));
    return shim && new FaultyBridge(shim);
  }

  async start(): Promise<BridgeClient> {
    this.shim.clear();
    this.child = await spawnBridge(['--data', this.dataDir, '--port', '0'], this.shim.env(this.dataDir));
    this.client = new BridgeClient({
      baseUrl: this.child.baseUrl,
      token: readFileSync(join(this.dataDir, 'token'), 'utf8').trim(),
    });
    return this.client;
  }

  async kill9(): Promise<void> {
    this.child!.child.kill('SIGKILL');
    await this.child!.exited;
    this.child = undefined;
  }

  /** SIGTERM: a clean stop, which checkpoints into library.db. */
  async stop(): Promise<number | null> {
    this.child!.child.kill('SIGTERM');
    const { code } = await this.child!.exited;
    this.child = undefined;
    return code;
  }

  /** Titles of a study set's cards in library.db itself (journal left aside), with the bridge stopped. */
  async titlesInLibraryDb(topicid: string): Promise<string[]> {
    const SQL = await loadSqlite();
    const db = new SQL.Database(readFileSync(join(this.dataDir, 'library.db')));
    try {
      const res = db.exec(`SELECT title FROM notes WHERE topicid = ? ORDER BY title`, [topicid]);
      return (res[0]?.values ?? []).map((r) => String(r[0]));
    } finally {
      db.close();
    }
  }

  async dispose(): Promise<void> {
    if (this.child) await this.kill9();
    rmSync(this.dataDir, { recursive: true, force: true });
    rmSync(this.shim.dir, { recursive: true, force: true });
  }
}

/** Titles of a set's cards, as an agent reads them. */
export async function titles(client: BridgeClient, topicid: string): Promise<string[]> {
  const tree = await client.request<{ nodes: Array<{ title: string }> }>('GET', `/study-sets/${topicid}/tree`);
  return tree.nodes.map((n) => n.title).sort();
}

export const createCard = (client: BridgeClient, topicid: string, title: string) =>
  client.raw('POST', `/study-sets/${topicid}/notes`, { body: { title, confirm: true } });
