import CCurl
public import LinuxIO

/// libcurl, loaded at run time with `dlopen`, and the table of the functions the uplink calls.
///
/// lifesignald is not linked against libcurl: Debian's libcurl4 pulls in ~29 more shared libraries
/// (OpenSSL, gnutls, Kerberos, LDAP, …) whose mapping, relocation and constructors cost an offline
/// device about 6.5 MiB of resident memory it would never use (BENCHMARKS.md). The library is
/// loaded the first time a `CurlTransport` is made, i.e. only when `[uplink]` or `[healthchecks]`
/// is configured. Every function pointer's type comes from curl.h (see CCurl/shim.h).
public final class LibCurl: @unchecked Sendable {  // immutable after init: a handle and pointers to code
    /// The soname of libcurl 4 (Debian package libcurl4), the only ABI the uplink is written for.
    public static let soname = "libcurl.so.4"

    private let library: DynamicLibrary
    let globalInit: lifesignal_curl_global_init_fn
    let version: lifesignal_curl_version_fn
    let easyInit: lifesignal_curl_easy_init_fn
    let easyCleanup: lifesignal_curl_easy_cleanup_fn
    let easyReset: lifesignal_curl_easy_reset_fn
    /// Variadic: called only through the typed shims of CCurl/shim.h.
    let easySetopt: lifesignal_curl_easy_setopt_fn
    let easyGetinfo: lifesignal_curl_easy_getinfo_fn
    let easyStrerror: lifesignal_curl_easy_strerror_fn
    let slistAppend: lifesignal_curl_slist_append_fn
    let slistFreeAll: lifesignal_curl_slist_free_all_fn
    let multiInit: lifesignal_curl_multi_init_fn
    let multiCleanup: lifesignal_curl_multi_cleanup_fn
    let multiAddHandle: lifesignal_curl_multi_add_handle_fn
    let multiRemoveHandle: lifesignal_curl_multi_remove_handle_fn
    let multiPerform: lifesignal_curl_multi_perform_fn
    let multiTimeout: lifesignal_curl_multi_timeout_fn
    let multiPoll: lifesignal_curl_multi_poll_fn
    let multiWakeup: lifesignal_curl_multi_wakeup_fn
    let multiInfoRead: lifesignal_curl_multi_info_read_fn
    let multiStrerror: lifesignal_curl_multi_strerror_fn

    /// The process's libcurl, loaded and `curl_global_init`ed once, on first use, thread-safely
    /// (libcurl requires that before any other call and while no other thread uses it). It stays
    /// loaded for the life of the process: OpenSSL and libcurl keep global state that must not be
    /// unmapped under them.
    public static func shared() throws(LibCurlUnavailable) -> LibCurl {
        try process.get()
    }

    private static let process = Result { () throws(LibCurlUnavailable) -> LibCurl in
        let curl = try load()
        let code = curl.globalInit(Int(CURL_GLOBAL_ALL))
        guard code == CURLE_OK else {
            throw LibCurlUnavailable(.libcurl, library: soname, step: .initialization,
                                     reason: curl.message(code))
        }
        return curl
    }

    /// Opens `soname` and resolves every function of the table; nothing is called yet. A missing
    /// library or function is an error naming it, never a crash at the first request.
    public static func load(soname: String = soname) throws(LibCurlUnavailable) -> LibCurl {
        do {
            return try LibCurl(library: DynamicLibrary.open(soname))
        } catch {
            throw LibCurlUnavailable(.libcurl, error)
        }
    }

    private init(library: DynamicLibrary) throws(DynamicLibraryError) {
        self.library = library
        globalInit = try library.function("curl_global_init")
        version = try library.function("curl_version")
        easyInit = try library.function("curl_easy_init")
        easyCleanup = try library.function("curl_easy_cleanup")
        easyReset = try library.function("curl_easy_reset")
        easySetopt = try library.function("curl_easy_setopt")
        easyGetinfo = try library.function("curl_easy_getinfo")
        easyStrerror = try library.function("curl_easy_strerror")
        slistAppend = try library.function("curl_slist_append")
        slistFreeAll = try library.function("curl_slist_free_all")
        multiInit = try library.function("curl_multi_init")
        multiCleanup = try library.function("curl_multi_cleanup")
        multiAddHandle = try library.function("curl_multi_add_handle")
        multiRemoveHandle = try library.function("curl_multi_remove_handle")
        multiPerform = try library.function("curl_multi_perform")
        multiTimeout = try library.function("curl_multi_timeout")
        multiPoll = try library.function("curl_multi_poll")
        multiWakeup = try library.function("curl_multi_wakeup")
        multiInfoRead = try library.function("curl_multi_info_read")
        multiStrerror = try library.function("curl_multi_strerror")
    }

    /// libcurl's version and its TLS library, e.g. "libcurl/7.88.1 OpenSSL/3.0.15 zlib/1.2.13 …".
    public var versionText: String { text(version()) }

    /// libcurl's message for an easy-interface result.
    func message(_ code: CURLcode) -> String { text(easyStrerror(code)) }

    /// libcurl's message for a multi-interface result.
    func message(_ code: CURLMcode) -> String { text(multiStrerror(code)) }

    /// libcurl's strings are static and never NULL; the function pointers' types just do not say so.
    private func text(_ string: UnsafePointer<CChar>?) -> String {
        string.map { String(cString: $0) } ?? "(no message)"
    }
}

/// libcurl could not be loaded or set up: the uplink cannot run on this system as installed.
public typealias LibCurlUnavailable = LibraryUnavailable

extension LibraryUnavailable.Role {
    static let libcurl = Self(
        name: "libcurl", initializer: "curl_global_init", user: "the uplink",
        fix: "the uplink ([uplink], [healthchecks]) needs libcurl: install the Debian package libcurl4 "
            + "(apt install libcurl4), or remove those sections to run the device offline")
}
