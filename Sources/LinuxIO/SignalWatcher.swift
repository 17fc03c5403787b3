import Glibc
import Synchronization

/// Signals (SIGTERM, SIGINT) as calls on a thread of their own, so the daemon can shut down in
/// order instead of dying mid-write.
///
/// The handler does the one async-signal-safe thing: it writes the signal's number into a pipe.
/// A poll loop on a `StoppableThread` reads the pipe and calls `onSignal`. The thread unblocks the
/// signals for itself, so they arrive even when the daemon inherited them blocked (a parent's
/// mask passes to its children). `stop()` puts back what the signals did before.
///
/// One watcher per process at a time: the handler has one pipe to write to. Its thread holds it,
/// so it lives until `stop()`; dropping it does not stop it.
public final class SignalWatcher: Sendable {
    private let signals: [Int32]
    private let previous: [SavedDisposition]
    private let pipe: Int32
    private let loop: StoppableThread
    private let stopped = Atomic<Bool>(false)

    /// Installs the handler for `signals` and starts the thread. Throws when another watcher is
    /// active, or when the pipe, the handler or the thread cannot be made.
    public static func start(
        _ signals: [Int32], onSignal: @escaping @Sendable (Int32) -> Void
    ) throws(SystemError) -> SignalWatcher {
        let names = signals.map(signalName).joined(separator: ", ")
        guard !watcherActive.exchange(true, ordering: .sequentiallyConsistent) else {
            throw SystemError("install a handler for", "\(names) (another signal watcher is active)", errno: EBUSY)
        }
        let pipe: Int32
        let loop: StoppableThread
        do {
            pipe = try SignalPipe.readEnd()
            loop = try StoppableThread()
        } catch {
            watcherActive.store(false, ordering: .sequentiallyConsistent)
            throw error
        }
        SignalPipe.drain(pipe)  // signals of an earlier watcher's time are not ours
        var saved: [SavedDisposition] = []
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = forwardSignalToPipe
            sigemptyset(&action.sa_mask)
            // Interrupted system calls resume: the daemon's other threads never see EINTR for this.
            action.sa_flags = SA_RESTART
            var old = sigaction()
            guard sigaction(signal, &action, &old) == 0 else {
                let error = SystemError.current("sigaction", signalName(signal))
                restore(saved)
                watcherActive.store(false, ordering: .sequentiallyConsistent)
                throw error
            }
            saved.append(SavedDisposition(signal: signal, action: old))
        }
        let watcher = SignalWatcher(signals: signals, previous: saved, pipe: pipe, loop: loop)
        do {
            try loop.start(name: "signals") { watcher.run(onSignal: onSignal) }
        } catch {
            watcher.stop()
            throw error
        }
        return watcher
    }

    private init(signals: [Int32], previous: [SavedDisposition], pipe: Int32, loop: StoppableThread) {
        self.signals = signals
        self.previous = previous
        self.pipe = pipe
        self.loop = loop
    }

    /// Puts back the signals' previous dispositions and stops the thread. Idempotent.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        restore(previous)
        loop.stop()
        watcherActive.store(false, ordering: .sequentiallyConsistent)
    }

    private func run(onSignal: @Sendable (Int32) -> Void) {
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for signal in signals { sigaddset(&unblocked, signal) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)

        var descriptors = [pollfd(fd: pipe, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: loop.wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
        var received = [UInt8](repeating: 0, count: 16)
        while !loop.isStopping {
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else { return }
            if loop.isStopping { return }
            let count = received.withUnsafeMutableBytes { read(pipe, $0.baseAddress, $0.count) }
            for index in 0..<max(count, 0) { onSignal(Int32(received[index])) }
        }
    }
}

/// "SIGTERM" for 15, as people read it in a log.
public func signalName(_ signal: Int32) -> String {
    switch signal {
    case SIGTERM: "SIGTERM"
    case SIGINT: "SIGINT"
    case SIGHUP: "SIGHUP"
    case SIGQUIT: "SIGQUIT"
    case SIGUSR1: "SIGUSR1"
    case SIGUSR2: "SIGUSR2"
    default: "signal \(signal)"
    }
}

private struct SavedDisposition: @unchecked Sendable {  // plain C data, read only by stop()
    var signal: Int32
    var action: sigaction
}

private func restore(_ saved: [SavedDisposition]) {
    for entry in saved {
        var action = entry.action
        _ = sigaction(entry.signal, &action, nil)
    }
}

private let watcherActive = Atomic<Bool>(false)

/// One pipe for the life of the process, never closed: a handler still running on another thread
/// while a watcher stops must not write into a descriptor number that was closed and reused.
/// Both ends are non-blocking, so a handler never waits on a full pipe nobody reads.
private enum SignalPipe {
    private static let made = Mutex<Int32?>(nil)

    /// The read end, the pipe made on first use.
    static func readEnd() throws(SystemError) -> Int32 {
        try made.withLock { (made: inout Int32?) throws(SystemError) in
            if let made { return made }
            var ends: [Int32] = [-1, -1]
            guard Glibc.pipe(&ends) == 0 else { throw .current("pipe", "signal watcher") }
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
            // Set before any handler is installed: the handler only ever loads it.
            signalPipeWriteEnd.store(ends[1], ordering: .sequentiallyConsistent)
            made = ends[0]
            return ends[0]
        }
    }

    static func drain(_ descriptor: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }
}

/// The pipe's write end for the handler; -1 until the pipe exists.
private let signalPipeWriteEnd = Atomic<Int32>(-1)

/// Only async-signal-safe calls: an atomic load and write(2); errno is put back for the
/// interrupted code.
private func forwardSignalToPipe(_ signal: Int32) {
    let savedErrno = errno
    let descriptor = signalPipeWriteEnd.load(ordering: .relaxed)
    if descriptor >= 0 {
        var byte = UInt8(truncatingIfNeeded: signal)
        _ = write(descriptor, &byte, 1)
    }
    errno = savedErrno
}
