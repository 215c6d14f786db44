/* floor.c: the least a server on libmicrohttpd and libpq can do for GET /me, for scripts/bench to
 * measure beside focus-island: what the two libraries and the kernel cost by themselves, so the
 * server's own cost per request reads against a floor and not against nothing.
 *
 * It keeps what focus-island cannot drop and nothing else: the same daemon flags and epoll thread
 * pool (HTTP_THREADS), a pool of DB_POOL_SIZE libpq connections behind one mutex, the statement
 * prepared once per connection, a worker that waits for its answer (DB_ASYNC=off's path, the one
 * focus-island takes when the answer comes within DB_ANSWER_WAIT), the body and ETag copied
 * into the response. No routing, no checks, no log line, no metrics: /health answers a fixed body,
 * any other path runs FLOOR_SQL with the request's bearer token as $1.
 *
 * Environment: DATABASE_URL, FLOOR_SQL, PORT (0: any free one), HTTP_THREADS, DB_POOL_SIZE.
 * It prints "listening on 127.0.0.1:PORT" once it listens, and stops on SIGTERM or SIGINT. */
#include <libpq-fe.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PGconn **connections;
static int *idle, idle_count;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_free = PTHREAD_COND_INITIALIZER;

static int check_out(void) {
    pthread_mutex_lock(&pool_lock);
    while (idle_count == 0) pthread_cond_wait(&pool_free, &pool_lock);
    int index = idle[--idle_count];
    pthread_mutex_unlock(&pool_lock);
    return index;
}

static void check_in(int index) {
    pthread_mutex_lock(&pool_lock);
    idle[idle_count++] = index;
    pthread_cond_signal(&pool_free);
    pthread_mutex_unlock(&pool_lock);
}

static enum MHD_Result queue(struct MHD_Connection *connection, unsigned status, struct MHD_Response *response) {
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued;
}

static enum MHD_Result answer(void *context, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **state) {
    (void)context, (void)method, (void)version, (void)upload, (void)upload_size;
    if (*state == NULL) { /* the head: wait for the end of the request */
        *state = connection;
        return MHD_YES;
    }
    if (strcmp(url, "/health") == 0) {
        static const char healthy[] = "{\"status\":\"ok\"}";
        return queue(connection, 200,
                     MHD_create_response_from_buffer(sizeof healthy - 1, (void *)healthy, MHD_RESPMEM_PERSISTENT));
    }
    const char *authorization = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Authorization");
    const char *token = authorization && strncmp(authorization, "Bearer ", 7) == 0 ? authorization + 7 : "";
    int index = check_out();
    PGresult *result = PQexecPrepared(connections[index], "floor", 1, &token, NULL, NULL, 0);
    check_in(index);
    if (PQresultStatus(result) != PGRES_TUPLES_OK || PQntuples(result) != 1 || PQnfields(result) < 3) {
        PQclear(result);
        return queue(connection, 500, MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
    }
    /* The columns of every api function's reply: status (null: 200), body, etag. */
    unsigned status = PQgetisnull(result, 0, 0) ? 200 : (unsigned)atoi(PQgetvalue(result, 0, 0));
    struct MHD_Response *response =
        MHD_create_response_from_buffer(PQgetlength(result, 0, 1), PQgetvalue(result, 0, 1), MHD_RESPMEM_MUST_COPY);
    if (!PQgetisnull(result, 0, 2)) MHD_add_response_header(response, "ETag", PQgetvalue(result, 0, 2));
    PQclear(result);
    return queue(connection, status, response);
}

static int setting(const char *name, int otherwise) {
    const char *value = getenv(name);
    return value && *value ? atoi(value) : otherwise;
}

int main(void) {
    const char *url = getenv("DATABASE_URL"), *sql = getenv("FLOOR_SQL");
    if (!url || !sql) {
        fprintf(stderr, "floor: DATABASE_URL and FLOOR_SQL are needed\n");
        return 2;
    }
    int size = setting("DB_POOL_SIZE", 8);
    connections = calloc((size_t)size, sizeof *connections);
    idle = calloc((size_t)size, sizeof *idle);
    for (int index = 0; index < size; index++) {
        connections[index] = PQconnectdb(url);
        PGresult *prepared = PQstatus(connections[index]) == CONNECTION_OK
                                 ? PQprepare(connections[index], "floor", sql, 1, NULL)
                                 : NULL;
        if (PQresultStatus(prepared) != PGRES_COMMAND_OK) {
            fprintf(stderr, "floor: %s", PQerrorMessage(connections[index]));
            return 1;
        }
        PQclear(prepared);
        idle[idle_count++] = index;
    }
    /* Blocked before the daemon's threads start, so they inherit it and only sigwait sees a stop. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    /* focus-island's public port: ITC, an epoll thread pool, suspend/resume and TURBO (live). */
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO,
        (uint16_t)setting("PORT", 0), NULL, NULL, answer, NULL, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned)setting("HTTP_THREADS", 8), MHD_OPTION_CONNECTION_LIMIT, 20000u, MHD_OPTION_CONNECTION_TIMEOUT,
        30u, MHD_OPTION_END);
    if (!daemon) {
        fprintf(stderr, "floor: could not listen\n");
        return 1;
    }
    printf("listening on 127.0.0.1:%u\n", MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT)->port);
    fflush(stdout);
    int signal_number;
    sigwait(&stop, &signal_number);
    MHD_stop_daemon(daemon);
    return 0;
}
