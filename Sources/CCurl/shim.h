// libcurl (Debian's libcurl4-openssl-dev: OpenSSL, the system CA store) for the device's uplink.
//
// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call; each shim below
// fixes one argument type so the call is type-checked on both sides. The type-checking macros of
// curl.h are turned off because they wrap those variadic calls in GCC extensions.
#ifndef LIFESIGNAL_CCURL_SHIM_H
#define LIFESIGNAL_CCURL_SHIM_H

#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

typedef size_t (*lifesignal_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode lifesignal_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode lifesignal_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode lifesignal_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode lifesignal_curl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

static inline CURLcode lifesignal_curl_set_body_size(CURL *handle, long long size) {
    return curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)size);
}

static inline CURLcode lifesignal_curl_set_callback(CURL *handle, CURLoption option, lifesignal_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode lifesignal_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

/// CURLMsg.data is a union; Swift reads its CURLcode member through this.
static inline CURLcode lifesignal_curl_message_result(CURLMsg *message) {
    return message->data.result;
}

#endif
