// Typed wrappers of libcurl's variadic curl_easy_setopt and curl_easy_getinfo, which Swift
// cannot call directly: the push sender (HTTP/2) and the mail sender (SMTP) use these.
static inline CURLcode focus_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode focus_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode focus_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}
static inline CURLcode focus_curl_set_slist(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}
typedef size_t (*focus_curl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode focus_curl_set_write(CURL *curl, CURLoption option, focus_curl_write_callback value) {
    return curl_easy_setopt(curl, option, value);
}
static inline long focus_curl_status(CURL *curl) {
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    return status;
}
static inline long focus_curl_http_version(CURL *curl) {
    long version = 0;
    curl_easy_getinfo(curl, CURLINFO_HTTP_VERSION, &version);
    return version;
}
