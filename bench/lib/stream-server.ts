/** The service as src/main.ts runs it, plus bench/stream's memory control port (memory-port.ts). */
import { startService } from '../../src/app';
import { loadConfigOrExit } from '../../src/config';
import { lockDataDirOrExit } from '../../src/data-dir-lock';
import { setLogLevel } from '../../src/log';
import { serveMemoryPort } from './memory-port';

const config = loadConfigOrExit();
setLogLevel(config.logLevel);
lockDataDirOrExit(config);
const service = await startService(config);

serveMemoryPort();

process.on('SIGTERM', () => {
  void service.stop().then(() => process.exit(0));
});
