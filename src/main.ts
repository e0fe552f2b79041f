/** Entry point: read config once, start the roles, drain on SIGTERM/SIGINT. */
import { startService } from './app';
import { loadConfigOrExit } from './config';
import { log, setLogLevel } from './log';

const config = loadConfigOrExit();
setLogLevel(config.logLevel);
const service = await startService(config);
const mode = config.databaseUrl || config.clickhouseUrl || config.natsUrl ? 'server' : 'embedded';
log.info('hookcap ready', {
  mode,
  roles: [...config.roles],
  api: config.baseUrl,
  receiver: `${config.receiverUrl}/w/<slug>`,
  listening: service.urls,
  docs: `${config.baseUrl}/docs`,
});
console.log(`hookcap ready (${mode}): API ${config.baseUrl}/api  receiver ${config.receiverUrl}/w/<slug>  docs ${config.baseUrl}/docs`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info('shutting down', { signal });
  try {
    await service.stop();
    process.exit(0);
  } catch (err) {
    log.error('shutdown failed', { error: String(err) });
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
