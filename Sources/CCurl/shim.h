// libcurl (Debian's libcurl4-openssl-dev: OpenSSL, the system CA store) for the device's uplink.
//
// libcurl is not linked: UplinkLive's `LibCurl` loads it with dlopen and calls it through a table
// of function pointers. The pointer types below are taken from curl.h's own declarations
// (`__typeof__`), so the compiler checks every call against the installed header.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call (their pointers
// reach Swift as opaque pointers); each shim below fixes one argument type so the call is
// type-checked on both sides. The type-checking macros of curl.h are turned off because they wrap
// those variadic calls in GCC extensions.
#ifndef LIFESIGNAL_CCURL_SHIM_H
#define LIFESIGNAL_CCURL_SHIM_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

typedef __typeof__(curl_global_init) *lifesignal_curl_global_init_fn;
typedef __typeof__(curl_version) *lifesignal_curl_version_fn;
typedef __typeof__(curl_easy_init) *lifesignal_curl_easy_init_fn;
typedef __typeof__(curl_easy_cleanup) *lifesignal_curl_easy_cleanup_fn;
typedef __typeof__(curl_easy_reset) *lifesignal_curl_easy_reset_fn;
typedef __typeof__(curl_easy_setopt) *lifesignal_curl_easy_setopt_fn;
typedef __typeof__(curl_easy_getinfo) *lifesignal_curl_easy_getinfo_fn;
typedef __typeof__(curl_easy_strerror) *lifesignal_curl_easy_strerror_fn;
typedef __typeof__(curl_slist_append) *lifesignal_curl_slist_append_fn;
typedef __typeof__(curl_slist_free_all) *lifesignal_curl_slist_free_all_fn;
typedef __typeof__(curl_multi_init) *lifesignal_curl_multi_init_fn;
typedef __typeof__(curl_multi_cleanup) *lifesignal_curl_multi_cleanup_fn;
typedef __typeof__(curl_multi_add_handle) *lifesignal_curl_multi_add_handle_fn;
typedef __typeof__(curl_multi_remove_handle) *lifesignal_curl_multi_remove_handle_fn;
typedef __typeof__(curl_multi_perform) *lifesignal_curl_multi_perform_fn;
typedef __typeof__(curl_multi_timeout) *lifesignal_curl_multi_timeout_fn;
typedef __typeof__(curl_multi_poll) *lifesignal_curl_multi_poll_fn;
typedef __typeof__(curl_multi_wakeup) *lifesignal_curl_multi_wakeup_fn;
typedef __typeof__(curl_multi_info_read) *lifesignal_curl_multi_info_read_fn;
typedef __typeof__(curl_multi_strerror) *lifesignal_curl_multi_strerror_fn;

typedef size_t (*lifesignal_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode lifesignal_curl_set_long(lifesignal_curl_easy_setopt_fn setopt, CURL *handle, CURLoption option, long value) {
    return setopt(handle, option, value);
}

static inline CURLcode lifesignal_curl_set_string(lifesignal_curl_easy_setopt_fn setopt, CURL *handle, CURLoption option, const char *value) {
    return setopt(handle, option, value);
}

static inline CURLcode lifesignal_curl_set_pointer(lifesignal_curl_easy_setopt_fn setopt, CURL *handle, CURLoption option, void *value) {
    return setopt(handle, option, value);
}

static inline CURLcode lifesignal_curl_set_headers(lifesignal_curl_easy_setopt_fn setopt, CURL *handle, struct curl_slist *headers) {
    return setopt(handle, CURLOPT_HTTPHEADER, headers);
}

static inline CURLcode lifesignal_curl_set_body_size(lifesignal_curl_easy_setopt_fn setopt, CURL *handle, long long size) {
    return setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)size);
}

static inline CURLcode lifesignal_curl_set_callback(lifesignal_curl_easy_setopt_fn setopt, CURL *handle, CURLoption option, lifesignal_curl_data_callback callback) {
    return setopt(handle, option, callback);
}

static inline CURLcode lifesignal_curl_response_code(lifesignal_curl_easy_getinfo_fn getinfo, CURL *handle, long *code) {
    return getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

/// CURLMsg.data is a union; Swift reads its CURLcode member through this.
static inline CURLcode lifesignal_curl_message_result(CURLMsg *message) {
    return message->data.result;
}

#endif
