const watched = new WeakSet<NodeJS.WriteStream>();

/**
 * A reader that closes its end early (`cadre agents | head -1`) makes cadre's next write fail with EPIPE,
 * which Node raises as an uncaught error with a stack trace. Like any Unix tool, cadre then stops quietly,
 * with the exit code it had: nothing more can reach that reader. Any other write error ends the run in
 * one line. Idempotent: the program and the headless run both ask for it.
 */
export function stopWhenOutputCloses(stream: NodeJS.WriteStream = process.stdout): void {
  if (watched.has(stream)) return;
  watched.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit();
    process.stderr.write(`cadre: cannot write the output: ${error.message}\n`);
    process.exit(1);
  });
}
