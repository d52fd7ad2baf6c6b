/**
 * Reads a V8 CPU profile (.cpuprofile) and says where the time went: self time per function, and per "owner" (a
 * package under node_modules, Node's core, the service's own code, V8's garbage collector…) both as self time and as
 * inclusive time (the share of samples with that owner anywhere on the stack).
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled ms that were not idle. */
  readonly busy_ms: number;
  readonly idle_ms: number;
  /** Self time per owner, % of busy. */
  readonly self_by_owner: Record<string, number>;
  /** % of busy samples with that owner anywhere on the stack (sums to more than 100). */
  readonly inclusive_by_owner: Record<string, number>;
  /** The functions with the most self time, % of busy. */
  readonly top_self: Array<{ function: string; where: string; owner: string; pct: number }>;
  /** % of busy samples under each named stage (a frame `function@file` containing the stage's pattern). */
  readonly stages: Record<string, number>;
}

/** Where a request of the service spends its time, by the entry function of each stage. */
export const REQUEST_STAGES: Record<string, string> = {
  'pino-http (request logging, level silent)': 'loggingMiddleware@pino-http',
  'helmet (security headers)': 'helmetMiddleware@helmet',
  'JSON body middleware (body-parser + checks)': 'use@src/common/http/json-body',
  'passport bearer strategy + key lookup': 'authenticate@passport/lib',
  'Nest ValidationPipe (class-transformer + class-validator)': 'transform@@nestjs/common/pipes/validation',
  'batch items validated one by one (class-validator)': 'validateObject@src/common/validation',
  'events controller + service (incl. their queries)': 'record@src/events/events.controller',
  'batch controller + service (incl. their queries)': 'recordBatch@src/events/events.controller',
  'TypeORM queries (incl. pg)': 'query@typeorm/driver/postgres/PostgresQueryRunner',
  'pg: sending a query (cork/uncork → writev)': 'submit@pg/lib/query',
  'Express response (res.json → send)': 'json@express/lib/response',
  'garbage collector': '(garbage collector)@',
};

const SPECIAL: Record<string, string> = {
  '(garbage collector)': 'V8: garbage collector',
  '(program)': 'V8/native: (program)',
  '(idle)': 'idle',
  '(root)': 'root',
};

/** Who a frame belongs to. */
export function ownerOf(frame: CallFrame): string {
  if (SPECIAL[frame.functionName] && !frame.url) return SPECIAL[frame.functionName];
  const url = frame.url;
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node core';
  if (url.includes('/dist/src/') || url.includes('/dist/ormconfig')) return 'size-fit (src)';
  if (url.includes('/dist/bench/')) return 'bench';
  if (!url) return 'V8/native: builtins';
  return url;
}

const where = (frame: CallFrame) => {
  const url = frame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/');
  return url ? `${url}:${frame.lineNumber + 1}` : '';
};

const pct = (part: number, whole: number) => Math.round((1000 * part) / whole) / 10;

export function summariseProfile(file: string, top = 25, stages: Record<string, string> = REQUEST_STAGES): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // Self time: each sample's delta to the next one goes to the sampled node.
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + Math.max(0, delta));
  }

  // The owners on each node's stack, computed once per node.
  const stackOwners = new Map<number, Set<string>>();
  const ownersOn = (id: number): Set<string> => {
    const known = stackOwners.get(id);
    if (known) return known;
    const node = byId.get(id) as ProfileNode;
    const up = parent.has(id) ? ownersOn(parent.get(id) as number) : new Set<string>();
    const owners = new Set(up).add(ownerOf(node.callFrame));
    stackOwners.set(id, owners);
    return owners;
  };

  let busy = 0;
  let idle = 0;
  const selfOwner = new Map<string, number>();
  const inclusiveOwner = new Map<string, number>();
  const selfFunction = new Map<string, { frame: CallFrame; us: number }>();
  for (const [id, us] of selfUs) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const owner = ownerOf(frame);
    if (owner === 'idle') {
      idle += us;
      continue;
    }
    busy += us;
    selfOwner.set(owner, (selfOwner.get(owner) ?? 0) + us);
    for (const o of ownersOn(id)) if (o !== 'root') inclusiveOwner.set(o, (inclusiveOwner.get(o) ?? 0) + us);
    const key = `${frame.functionName}|${frame.url}|${frame.lineNumber}`;
    const entry = selfFunction.get(key) ?? { frame, us: 0 };
    entry.us += us;
    selfFunction.set(key, entry);
  }
  // Stages: samples with a matching frame anywhere on the stack, each sample counted once per stage.
  const frameKey = (f: CallFrame) => `${f.functionName}@${f.url.replace(/^.*\/node_modules\//, '').replace(/^.*\/dist\//, '')}`;
  const stageUs = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (ownerOf((byId.get(id) as ProfileNode).callFrame) === 'idle') continue;
    const found = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const key = frameKey((byId.get(cur) as ProfileNode).callFrame);
      for (const [stage, pattern] of Object.entries(stages)) if (!found.has(stage) && key.includes(pattern)) found.add(stage);
    }
    for (const stage of found) stageUs.set(stage, (stageUs.get(stage) ?? 0) + us);
  }
  const ranked = (m: Map<string, number>) =>
    Object.fromEntries(
      [...m]
        .sort((a, b) => b[1] - a[1])
        .filter(([, us]) => pct(us, busy) >= 0.5)
        .map(([k, us]) => [k, pct(us, busy)]),
    );
  return {
    busy_ms: Math.round(busy / 1000),
    idle_ms: Math.round(idle / 1000),
    self_by_owner: ranked(selfOwner),
    inclusive_by_owner: ranked(inclusiveOwner),
    stages: Object.fromEntries(Object.keys(stages).map((k) => [k, pct(stageUs.get(k) ?? 0, busy)])),
    top_self: [...selfFunction.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(({ frame, us }) => ({
        function: frame.functionName || '(anonymous)',
        where: where(frame),
        owner: ownerOf(frame),
        pct: pct(us, busy),
      })),
  };
}
