// lifesignal-floor: the least a Swift daemon of this shape holds in memory, as a yardstick for
// lifesignald's own figures (scripts/bench, "ready" and "sizes"; BENCHMARKS.md, "Memory and
// size"). Built like lifesignald (release, static Swift runtime, the same link), it opens a SQLite
// store in WAL mode with a check-in table, writes one row durably, and sleeps in poll until
// SIGTERM: the Swift runtime (with the pieces of libstdc++ it uses), libc and SQLite, and nothing of
// the device.
//
// Usage: lifesignal-floor DATABASE
import Glibc
import SQLiteDatabase

func fail(_ message: String, _ code: Int32) -> Never {
    var line = message + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(code)
}

guard CommandLine.arguments.count == 2 else { fail("usage: lifesignal-floor DATABASE", 64) }
do {
    let connection = try Connection(path: CommandLine.arguments[1])
    try connection.execute("PRAGMA journal_mode=WAL")
    try connection.execute("PRAGMA synchronous=FULL")
    try connection.execute("CREATE TABLE IF NOT EXISTS check_ins (id TEXT PRIMARY KEY, at INTEGER NOT NULL)")
    try connection.execute("INSERT INTO check_ins VALUES (hex(randomblob(16)), unixepoch())")
    var ready = "lifesignal-floor ready\n"
    ready.withUTF8 { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGTERM)
    sigprocmask(SIG_BLOCK, &blocked, nil)
    var signal: Int32 = 0
    sigwait(&blocked, &signal)
    withExtendedLifetime(connection) {}
} catch {
    fail("lifesignal-floor: \(error)", 70)
}
