// libmosquitto (Debian's libmosquitto-dev: MQTT 3.1.1 and 5, TLS through OpenSSL) for [mqtt].
//
// libmosquitto is not linked: MQTTLive's `LibMosquitto` loads it with dlopen and calls it through
// a table of function pointers. The pointer types below are taken from mosquitto.h's own
// declarations (`__typeof__`), so the compiler checks every call against the installed header.
#ifndef LIFESIGNAL_CMOSQUITTO_SHIM_H
#define LIFESIGNAL_CMOSQUITTO_SHIM_H

#include <mosquitto.h>

typedef __typeof__(mosquitto_lib_init) *lifesignal_mosquitto_lib_init_fn;
typedef __typeof__(mosquitto_lib_version) *lifesignal_mosquitto_lib_version_fn;
typedef __typeof__(mosquitto_new) *lifesignal_mosquitto_new_fn;
typedef __typeof__(mosquitto_destroy) *lifesignal_mosquitto_destroy_fn;
typedef __typeof__(mosquitto_int_option) *lifesignal_mosquitto_int_option_fn;
typedef __typeof__(mosquitto_username_pw_set) *lifesignal_mosquitto_username_pw_set_fn;
typedef __typeof__(mosquitto_will_set) *lifesignal_mosquitto_will_set_fn;
typedef __typeof__(mosquitto_tls_set) *lifesignal_mosquitto_tls_set_fn;
typedef __typeof__(mosquitto_connect_bind_async) *lifesignal_mosquitto_connect_bind_async_fn;
typedef __typeof__(mosquitto_disconnect) *lifesignal_mosquitto_disconnect_fn;
typedef __typeof__(mosquitto_publish) *lifesignal_mosquitto_publish_fn;
typedef __typeof__(mosquitto_subscribe) *lifesignal_mosquitto_subscribe_fn;
typedef __typeof__(mosquitto_socket) *lifesignal_mosquitto_socket_fn;
typedef __typeof__(mosquitto_loop_read) *lifesignal_mosquitto_loop_read_fn;
typedef __typeof__(mosquitto_loop_write) *lifesignal_mosquitto_loop_write_fn;
typedef __typeof__(mosquitto_loop_misc) *lifesignal_mosquitto_loop_misc_fn;
typedef __typeof__(mosquitto_want_write) *lifesignal_mosquitto_want_write_fn;
typedef __typeof__(mosquitto_connect_callback_set) *lifesignal_mosquitto_connect_callback_set_fn;
typedef __typeof__(mosquitto_disconnect_callback_set) *lifesignal_mosquitto_disconnect_callback_set_fn;
typedef __typeof__(mosquitto_publish_callback_set) *lifesignal_mosquitto_publish_callback_set_fn;
typedef __typeof__(mosquitto_subscribe_callback_set) *lifesignal_mosquitto_subscribe_callback_set_fn;
typedef __typeof__(mosquitto_message_callback_set) *lifesignal_mosquitto_message_callback_set_fn;
typedef __typeof__(mosquitto_log_callback_set) *lifesignal_mosquitto_log_callback_set_fn;
typedef __typeof__(mosquitto_strerror) *lifesignal_mosquitto_strerror_fn;
typedef __typeof__(mosquitto_connack_string) *lifesignal_mosquitto_connack_string_fn;

#endif
