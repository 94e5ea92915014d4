// `pnpm start` spawns this (after creating the local CA, which it passes in NODE_EXTRA_CA_CERTS).
import { loadEmbeddedConfig } from './config.ts';
import { demoAccounts, demoTenant } from './demo-seed.ts';
import { startEmbedded } from './system.ts';

const config = loadEmbeddedConfig(process.env);
const system = await startEmbedded(config);

const database = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `埋め込み PGlite (${config.dataDir})`;
process.stdout.write(
  [
    '',
    `Renkei (連携) が起動しました: ${system.url}`,
    `  データベース: ${database}`,
    ...(system.hasDemo
      ? [
          `  デモ テナント: ${demoTenant.name} (${demoTenant.slug})`,
          `  管理者: ${demoAccounts.owner.email} / ${demoAccounts.owner.password}`,
          `  一般:   ${demoAccounts.member.email} / ${demoAccounts.member.password}`,
        ]
      : ['  テナントの作成: pnpm ops tenant add <slug> --name <名前> --owner <email> --password <パスワード>']),
    `  証明書: ${config.dataDir}/tls/ca.pem をブラウザに信頼させると警告が消えます`,
    '  停止: Ctrl+C',
    '',
  ].join('\n'),
);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second Ctrl+C (or the signal forwarded by scripts/start.mjs) must not cut the shutdown short:
    // the embedded database has to be closed cleanly.
    if (stopping) return;
    stopping = true;
    process.stdout.write('停止しています…\n');
    system.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
