import LinuxIO
import CGPIOD
import Glibc
import GPIOClient

/// One requested line: the one owner of its libgpiod request, released in `deinit`.
final class LineRequest {
    let handle: OpaquePointer
    /// Kept open for as long as the request lives (libgpiod 1.x lines belong to their chip).
    let chip: GPIOChip
    let offset: UInt32
    /// "GPIO17 (line 17 of gpiochip0 [...])", for messages.
    let target: String

    /// Requests `offset` of `chip`; `EBUSY` names the consumer already holding it.
    init(chip: GPIOChip, offset: UInt32, consumer: String, settings: lsgpio_line_settings) throws(GPIOError) {
        let target = chip.describeLine(offset: offset)
        var settings = settings
        guard let handle = lsgpio_request_line(chip.handle, offset, consumer, &settings) else {
            let code = errno
            if code == EBUSY {
                let holder = chip.lineInfo(offset: offset)?.consumer ?? ""
                throw GPIOError(
                    operation: LibgpiodOperation.requestLine, target: target,
                    reason: "already used by " + (holder.isEmpty ? "another consumer" : "consumer '\(holder)'")
                        + " (\(errnoDescription(code)))",
                    hint: "stop the program holding it (`gpioinfo` shows who) or configure another line")
            }
            throw errnoError(LibgpiodOperation.requestLine, target, errno: code)
        }
        self.handle = handle
        self.chip = chip
        self.offset = offset
        self.target = target
    }

    deinit {
        lsgpio_request_release(handle)
    }

    /// The file descriptor that becomes readable when edge events are pending (inputs only).
    var eventDescriptor: Int32 { lsgpio_request_fd(handle) }

    /// The logical level (true = active, i.e. pressed or lit, whatever the wiring).
    func value() throws(GPIOError) -> Bool {
        let value = lsgpio_request_get_value(handle)
        guard value >= 0 else { throw errnoError(LibgpiodOperation.readLine, target) }
        return value == 1
    }

    func setValue(_ active: Bool) throws(GPIOError) {
        guard lsgpio_request_set_value(handle, active ? 1 : 0) == 0 else {
            throw errnoError(LibgpiodOperation.setLine, target)
        }
    }

    /// Reads the pending edge events in one call. Only call once `eventDescriptor` is readable:
    /// otherwise it blocks until an edge arrives.
    func readEdges() throws(GPIOError) -> [RawEdge] {
        var buffer = [lsgpio_edge_event](repeating: lsgpio_edge_event(), count: 16)
        let count = lsgpio_request_read_events(handle, &buffer, UInt32(buffer.count))
        guard count >= 0 else { throw errnoError(LibgpiodOperation.readEvents, target) }
        return buffer.prefix(Int(count)).map { event in
            RawEdge(
                rising: event.rising,
                at: .nanoseconds(Int64(clamping: event.timestamp_ns)),
                lineSequence: event.line_seqno)
        }
    }
}

/// Static facts about the libgpiod this binary was built against.
public enum LibgpiodLibrary {
    /// 1 or 2: which C API the shim compiled against.
    public static var apiMajor: Int { Int(lsgpio_api_major()) }
    /// The runtime library's own version string, e.g. "1.6.3" or "2.1.3".
    public static var version: String { String(cString: lsgpio_library_version()) }
    /// Whether the kernel debounces (uAPI v2) or this package does, in user space.
    public static var hasKernelDebounce: Bool { lsgpio_has_kernel_debounce() }
}
