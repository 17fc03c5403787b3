/// The device software's release, as it introduces itself on the wire (`User-Agent`).
public enum DeviceSoftware {
    /// The release version; `scripts/build-deb` packages the same number by default.
    public static let version = "0.1.0"
    /// `lifesignald/<version>`: what every request of the daemon carries, so a server's log tells
    /// the device's requests from anything else's.
    public static let userAgent = "lifesignald/\(version)"
}
