import Glibc

/// A failed system call: what we tried, on what, and the kernel's reason.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var target: String
    public var errno: Int32

    public init(_ operation: String, _ target: String, errno: Int32) {
        self.operation = operation
        self.target = target
        self.errno = errno
    }

    /// The error for the calling thread's current `errno`.
    public static func current(_ operation: String, _ target: String) -> SystemError {
        SystemError(operation, target, errno: Glibc.errno)
    }

    public var reason: String { errnoText(errno) }

    public var description: String { "\(operation) \(target): \(errnoDescription(errno))" }
}

/// The C library's text for an errno value, e.g. "Connection refused".
public func errnoText(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    // The XSI strerror_r (what Swift's Glibc module exposes): fills the buffer, returns 0.
    guard strerror_r(code, &buffer, buffer.count) == 0 else { return "errno \(code)" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The text with the number a search engine finds, e.g. "Device or resource busy (errno 16)": the
/// one way every module shows an errno.
public func errnoDescription(_ code: Int32) -> String {
    "\(errnoText(code)) (errno \(code))"
}

/// Repeats a system call interrupted by a signal.
public func retryingOnEINTR<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
