import Glibc
import LinuxIO
public import Logging
import Synchronization

/// The daemon's long-running parts as one tree: started together in their order, shut down one at
/// a time in the reverse order, each awaited before the next is asked (the control socket closes
/// before the device stops, the device's last write lands before the store closes).
///
/// The shutdown starts on a signal (SIGTERM from systemd, SIGINT from a terminal), on
/// `triggerGracefulShutdown()`, or when any service ends or fails by itself (the terminal view's
/// `q`, a control socket that cannot listen): the rest are still shut down in order, never just
/// cancelled, and `run()` then throws the first failure.
public final class ServiceTree: Sendable {
    /// Why the tree is shutting down, as its log line says it.
    public enum ShutdownCause: Sendable, Equatable, CustomStringConvertible {
        case signal(Int32)
        case requested
        case serviceEnded(String)
        case serviceFailed(String)

        public var description: String {
            switch self {
            case .signal(let signal): signalName(signal)
            case .requested: "asked to stop"
            case .serviceEnded(let name): "\(name) ended"
            case .serviceFailed(let name): "\(name) failed"
            }
        }
    }

    private enum Event: Sendable {
        case shutdown(ShutdownCause)
        case ended(index: Int, error: (any Error)?)
    }

    private struct Control {
        /// Handed to `run()` and not kept: a service that holds what holds the tree (a stop
        /// request's closure) must not make a cycle that outlives the run.
        var services: [any Service]?
        var requested = false
        var events: AsyncStream<Event>.Continuation?
    }

    private let shutdownSignals: [Int32]
    private let logger: Logger
    private let control: Mutex<Control>

    /// `services` in start order; `shutdownSignals` start the shutdown while `run()` runs (none:
    /// only `triggerGracefulShutdown()` and the services themselves do).
    public init(services: [any Service], shutdownSignals: [Int32], logger: Logger) {
        control = Mutex(Control(services: services))
        self.shutdownSignals = shutdownSignals
        self.logger = logger
    }

    /// Starts the shutdown, as SIGTERM does. Before `run()` it makes `run()` shut down at once.
    public func triggerGracefulShutdown() {
        let events = control.withLock { control in
            control.requested = true
            return control.events
        }
        events?.yield(.shutdown(.requested))
    }

    /// Runs every service until all have ended; throws the first service's failure, or the signal
    /// watcher's if it cannot be installed (then no service starts). Runs once.
    public func run() async throws {
        let (events, sink) = AsyncStream<Event>.makeStream()
        let (services, requestedEarly) = try control.withLock {
            (control: inout Control) throws(ServiceTreeError) -> ([any Service], Bool) in
            guard let services = control.services else { throw .alreadyRan }
            control.services = nil
            control.events = sink
            return (services, control.requested)
        }
        defer {
            control.withLock { $0.events = nil }
            sink.finish()
        }
        if requestedEarly { sink.yield(.shutdown(.requested)) }
        let watcher = shutdownSignals.isEmpty ? nil : try SignalWatcher.start(shutdownSignals) { signal in
            sink.yield(.shutdown(.signal(signal)))
        }
        defer { watcher?.stop() }

        let latches = services.map { _ in ShutdownLatch() }
        let names = services.map { String(describing: $0) }
        var firstFailure: (any Error)?
        await withTaskGroup(of: Void.self) { group in
            for (index, service) in services.enumerated() {
                let latch = latches[index]
                group.addTask {
                    do {
                        try await ShutdownLatch.$current.withValue(latch) { try await service.run() }
                        sink.yield(.ended(index: index, error: nil))
                    } catch {
                        sink.yield(.ended(index: index, error: error))
                    }
                }
            }
            var running = Set(services.indices)
            var shuttingDown = false
            // The service asked last; services.count while none has been asked.
            var asked = services.count
            for await event in events {
                let cause: ShutdownCause
                switch event {
                case .shutdown(let reason):
                    cause = reason
                case .ended(let index, let error):
                    running.remove(index)
                    if let error {
                        firstFailure = firstFailure ?? error
                        cause = .serviceFailed(names[index])
                    } else {
                        cause = .serviceEnded(names[index])
                    }
                }
                if !shuttingDown {
                    shuttingDown = true
                    logger.notice("stopping: \(cause)")
                }
                if shuttingDown, !running.contains(asked) {
                    // The next one down that still runs; those that ended by themselves are skipped.
                    if let next = running.filter({ $0 < asked }).max() {
                        asked = next
                        logger.debug("stopping \(names[next])")
                        latches[next].fire()
                    }
                }
                if running.isEmpty { break }
            }
        }
        if let firstFailure { throw firstFailure }
    }
}

public enum ServiceTreeError: Error, Equatable, Sendable, CustomStringConvertible {
    case alreadyRan

    public var description: String {
        switch self {
        case .alreadyRan: "the service tree has already run; make a new one"
        }
    }
}
