import CLinuxSupport
import Glibc

/// Tells when entries whose names start with a prefix appear in, change in or leave a directory,
/// through inotify on a dedicated thread: no polling, and the thread sleeps until the kernel
/// reports a change or `stop()` wakes it.
///
/// Made for `/dev`: a device node is created by devtmpfs (IN_CREATE) and then given its group and
/// mode by udev (IN_ATTRIB), so both are reported — a node that could not be opened at its
/// creation may be openable after its attributes change.
public final class DirectoryWatcher: Sendable {
    public let directory: String
    /// The names of the entries that changed, in order; finishes after `stop()` or when the
    /// watch fails (the directory itself went away).
    public let changes: AsyncStream<String>
    private let thread: DedicatedThread
    private let wakeup: WakeupEvent

    /// Starts watching. The watch is in place when this returns, so a change made afterwards is
    /// never missed: check the directory's contents after creating the watcher, not before.
    public init(directory: String, namePrefix: String) throws(SystemError) {
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { throw .current("inotify_init1", directory) }
        let mask = UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM)
        guard inotify_add_watch(inotify, directory, mask) >= 0 else {
            let error = SystemError.current("inotify_add_watch", directory)
            close(inotify)
            throw error
        }
        let wakeup: WakeupEvent
        do {
            wakeup = try WakeupEvent()
        } catch {
            close(inotify)
            throw error
        }
        let (changes, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        let loop = WatchLoop(inotify: inotify, stop: wakeup.descriptor, prefix: namePrefix, continuation: continuation)
        do {
            thread = try DedicatedThread.start(name: "dir-watch") { loop.run() }
        } catch {
            close(inotify)
            throw error
        }
        self.directory = directory
        self.changes = changes
        self.wakeup = wakeup
    }

    /// Ends the thread (which closes the inotify descriptor) and finishes `changes`. Idempotent.
    public func stop() {
        wakeup.signal()
        thread.join()
    }

    deinit {
        stop()
    }
}

/// The watcher thread's state: owns the inotify descriptor, closed when the loop ends.
private final class WatchLoop: @unchecked Sendable {
    // Unchecked: created by `DirectoryWatcher.init` and used only on the watcher thread after.
    let inotify: Int32
    let stop: Int32
    let prefix: String
    let continuation: AsyncStream<String>.Continuation

    init(inotify: Int32, stop: Int32, prefix: String, continuation: AsyncStream<String>.Continuation) {
        self.inotify = inotify
        self.stop = stop
        self.prefix = prefix
        self.continuation = continuation
    }

    func run() {
        defer {
            close(inotify)
            continuation.finish()
        }
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
        ]
        // Large enough for many events with names up to NAME_MAX.
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let ready = retryingOnEINTR { poll(&descriptors, nfds_t(descriptors.count), -1) }
            guard ready > 0, descriptors[1].revents == 0 else { return }
            guard descriptors[0].revents & Int16(POLLIN) != 0 else { return }  // POLLERR: give up
            let count = buffer.withUnsafeMutableBytes { raw in
                retryingOnEINTR { read(inotify, raw.baseAddress, raw.count) }
            }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { continue }
            guard count > 0 else { return }
            for name in Self.names(in: buffer.prefix(count)) where name.hasPrefix(prefix) {
                continuation.yield(name)
            }
            // IN_IGNORED (the watched directory itself went away) has no name; it ends the watch.
            if Self.watchEnded(in: buffer.prefix(count)) { return }
        }
    }

    /// The names carried by a buffer of `struct inotify_event`s.
    static func names(in events: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        walk(events) { _, name in if let name { names.append(name) } }
        return names
    }

    static func watchEnded(in events: ArraySlice<UInt8>) -> Bool {
        var ended = false
        walk(events) { mask, _ in if mask & UInt32(IN_IGNORED) != 0 { ended = true } }
        return ended
    }

    private static func walk(_ events: ArraySlice<UInt8>, _ body: (UInt32, String?) -> Void) {
        let header = MemoryLayout<inotify_event>.size
        events.withUnsafeBytes { raw in
            var offset = 0
            while offset + header <= raw.count {
                let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + header
                let nameEnd = min(nameStart + Int(event.len), raw.count)
                var name: String?
                if event.len > 0 {
                    let bytes = raw[nameStart..<nameEnd].prefix { $0 != 0 }
                    name = String(decoding: bytes, as: UTF8.self)
                }
                body(event.mask, name)
                offset = nameEnd
            }
        }
    }
}
