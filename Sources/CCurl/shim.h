#include <curl/curl.h>
#include "options.h"
