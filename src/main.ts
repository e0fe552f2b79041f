/** Entry point: read config once, start the roles, drain on SIGTERM/SIGINT within SHUTDOWN_TIMEOUT_MS. */
import { ListenError, StartupError, startService, type Service } from './app';
import { loadConfigOrExit } from './config';
import { lockDataDirOrExit } from './data-dir-lock';
import { log, setLogLevel } from './log';

const config = loadConfigOrExit();
setLogLevel(config.logLevel);
// Before any store or the capture log is opened: a second process on this DATA_DIR stops here.
const dataDirLock = lockDataDirOrExit(config);
let service: Service;
try {
  service = await startService(config);
} catch (err) {
  if (!(err instanceof ListenError || err instanceof StartupError)) throw err;
  console.error(err.message);
  process.exit(1);
}
const mode = config.databaseUrl || config.clickhouseUrl || config.natsUrl ? 'server' : 'embedded';
log.info('hookcap ready', {
  mode,
  roles: [...config.roles],
  api: config.baseUrl,
  receiver: `${config.receiverUrl}/w/<slug>`,
  listening: service.urls,
  reusePort: config.reusePort,
  dataDir: dataDirLock?.dir ?? null,
  docs: `${config.baseUrl}/docs`,
});
console.log(`hookcap ready (${mode}): API ${config.baseUrl}/api  receiver ${config.receiverUrl}/w/<slug>  docs ${config.baseUrl}/docs`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal, timeoutMs: config.shutdownTimeoutMs });
  // The backstop: stop() keeps to the deadline itself; should anything still hold the process, it
  // exits anyway (the capture log is replayed at the next start).
  setTimeout(() => {
    log.error('shutdown deadline passed; exiting', { timeoutMs: config.shutdownTimeoutMs });
    process.exit(1);
  }, config.shutdownTimeoutMs).unref();
  try {
    await service.stop();
    dataDirLock?.release();
    process.exit(0);
  } catch (err) {
    log.error('shutdown failed', { error: String(err) });
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
