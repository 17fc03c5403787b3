import Glibc

/// The sanitizer this test run is built with (`LIFESIGNAL_SANITIZER`, set by scripts/test-sanitizers).
public enum Sanitizer {
    /// "thread", "address", or nil for a plain build.
    public static let current: String? = getenv("LIFESIGNAL_SANITIZER").map { String(cString: $0) }

    /// How many times longer to wait for something in a sanitized build, where every process and
    /// thread runs several times slower.
    public static let slowdown = current == nil ? 1 : 4
}
