// One autocannon run in its own process (the load generator never shares the measured server's
// process or event loop). Options as JSON in argv[2]; the result, as JSON, on stdout.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}') as autocannon.Options;
const result = await autocannon(options);
process.stdout.write(JSON.stringify(result));
