extension DeviceConfiguration {
    /// Where the store lives when neither `[store] path` nor `LIFESIGNAL_STORE_PATH` says:
    /// `$STATE_DIRECTORY/lifesignal.sqlite` (systemd's `StateDirectory=`), else
    /// `$XDG_STATE_HOME/lifesignal/lifesignal.sqlite`, else `$HOME/.local/state/lifesignal/lifesignal.sqlite`.
    /// Nil when none of these variables holds an absolute path. Empty variables count as unset.
    public static func defaultStorePath(environment: [String: String]) -> String? {
        if let state = firstAbsolutePath(environment["STATE_DIRECTORY"]) {
            return join(state, "lifesignal.sqlite")
        }
        if let xdg = firstAbsolutePath(environment["XDG_STATE_HOME"]) {
            return join(xdg, "lifesignal/lifesignal.sqlite")
        }
        if let home = firstAbsolutePath(environment["HOME"]) {
            return join(home, ".local/state/lifesignal/lifesignal.sqlite")
        }
        return nil
    }

    /// Where the control socket lives when neither `[control] socket` nor `LIFESIGNAL_SOCKET` says:
    /// `$RUNTIME_DIRECTORY/control.sock` (systemd's `RuntimeDirectory=`), else
    /// `$XDG_RUNTIME_DIR/lifesignal/control.sock`, else `/tmp/lifesignal-<user>/control.sock` with the
    /// user from `USER`, `LOGNAME` or `UID` (`/tmp/lifesignal/control.sock` if none is usable).
    /// `lifesignalctl` uses this too, so it finds the daemon's socket from the same environment.
    public static func defaultControlSocket(environment: [String: String]) -> String {
        if let runtime = firstAbsolutePath(environment["RUNTIME_DIRECTORY"]) {
            return join(runtime, "control.sock")
        }
        if let xdg = firstAbsolutePath(environment["XDG_RUNTIME_DIR"]) {
            return join(xdg, "lifesignal/control.sock")
        }
        for variable in ["USER", "LOGNAME", "UID"] {
            if let user = environment[variable], isSafeFileName(user) {
                return "/tmp/lifesignal-\(user)/control.sock"
            }
        }
        return "/tmp/lifesignal/control.sock"
    }

    /// systemd passes one path per `StateDirectory=` entry, separated by colons: use the first.
    private static func firstAbsolutePath(_ value: String?) -> String? {
        guard let value, let first = value.split(separator: ":", omittingEmptySubsequences: false).first,
              first.hasPrefix("/")
        else { return nil }
        return String(first)
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// A user name that cannot escape `/tmp` or hide in a dot file.
    private static func isSafeFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "A"..."Z", "a"..."z", "0"..."9", "_", "-", ".": true
                default: false
                }
            }
    }
}
