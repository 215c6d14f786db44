#include <curl/curl.h>
#include "push.h"
