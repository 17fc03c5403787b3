import CLinuxSupport
import Glibc

/// An eventfd that a poll loop watches next to its real descriptors, so another thread can wake it
/// at once (to stop it, or to tell it there is new work) without a timeout or a busy loop.
///
/// Owns its descriptor and closes it on deinit; keep it alive until the loop has ended.
public final class WakeupEvent: Sendable {
    /// Watch this for `POLLIN`.
    public let descriptor: Int32

    public init() throws(SystemError) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw .current("eventfd", "wake-up event") }
        descriptor = fd
    }

    /// Makes the descriptor readable. Safe from any thread; repeated signals coalesce.
    public func signal() {
        var one: UInt64 = 1
        // Only fails with EAGAIN when the counter would overflow, and then it is readable anyway.
        _ = retryingOnEINTR { write(descriptor, &one, MemoryLayout<UInt64>.size) }
    }

    /// Resets the descriptor to not-readable; call it when the loop has seen the wake-up.
    public func drain() {
        var value: UInt64 = 0
        _ = retryingOnEINTR { read(descriptor, &value, MemoryLayout<UInt64>.size) }
    }

    deinit {
        close(descriptor)
    }
}
