// Journey.java: an Android team's path through the API, with the Java client openapi-generator
// makes from docs/openapi.json (built by Tests/system/java-client.sh; docs/android.md). Two people
// arrive (Ann as a guest who upgrades, Bob by sign-up), one runs a focus session and buys an
// item, asks the other by email, who accepts; each step checks the values it got (balances,
// ids, the friendship from both sides), not only a 2xx.
//
//     java Journey BASE_URL OWNER_DATABASE_URL
//
// OWNER_DATABASE_URL is the database owner's (the server's MIGRATION_DATABASE_URL): psql reads the
// sign-up code mailed to the outbox there, as the operator's mailer would send it, and grants
// coins with app.grant_coins, the support tool the Swift client journeys use too (no route pays
// coins to an account a minute old: docs/economy.md). The JDK and the generated client only.
import focusisland.client.ApiClient;
import focusisland.client.ApiException;
import focusisland.client.api.DefaultApi;
import focusisland.client.model.Catalog;
import focusisland.client.model.EmailVerifyBody;
import focusisland.client.model.FriendAdded;
import focusisland.client.model.FriendRequestBody;
import focusisland.client.model.FriendRequestCreated;
import focusisland.client.model.FriendRequests;
import focusisland.client.model.FriendRequestsCreate200Response;
import focusisland.client.model.GuestBody;
import focusisland.client.model.IncomingFriendRequest;
import focusisland.client.model.Item;
import focusisland.client.model.ItemChoiceBody;
import focusisland.client.model.KnownIdsBody;
import focusisland.client.model.MindfulnessTipsSync200Response;
import focusisland.client.model.MindfulnessTipsSyncRequest;
import focusisland.client.model.OriginalTipSync;
import focusisland.client.model.OriginalTipsBody;
import focusisland.client.model.Problem;
import focusisland.client.model.Profile;
import focusisland.client.model.Purchase;
import focusisland.client.model.RegisterBody;
import focusisland.client.model.SessionBatchApplied;
import focusisland.client.model.SessionBatchBody;
import focusisland.client.model.SessionBatchItem;
import focusisland.client.model.SessionBatchRejected;
import focusisland.client.model.SessionBatchResults;
import focusisland.client.model.SessionEnded;
import focusisland.client.model.SessionFinishBody;
import focusisland.client.model.SessionStartBody;
import focusisland.client.model.SessionStarted;
import focusisland.client.model.SignedIn;
import focusisland.client.model.TipSync;
import focusisland.client.model.UpgradeBody;
import focusisland.client.model.Upgraded;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

public final class Journey {
    /** One person: their email, their id, and the API signed in as them. */
    record Person(String name, String email, UUID id, DefaultApi api) {}

    private final String baseUrl;
    private final String ownerDatabaseUrl;
    private final String stamp = Long.toString(System.nanoTime(), 36);

    private Journey(String baseUrl, String ownerDatabaseUrl) {
        this.baseUrl = baseUrl;
        this.ownerDatabaseUrl = ownerDatabaseUrl;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: java Journey BASE_URL OWNER_DATABASE_URL");
            System.exit(2);
        }
        try {
            new Journey(args[0], args[1]).run();
        } catch (JourneyFailure failure) {
            System.err.println("Java journey: " + failure.getMessage());
            System.exit(1);
        } catch (ApiException error) {
            System.err.println("Java journey: unexpected " + error.getCode() + ": " + error.getResponseBody());
            System.exit(1);
        }
    }

    private void run() throws Exception {
        Person ann = arrive("ann");
        Person bob = arrive("bob");
        verifyEmail(bob);
        SessionEnded session = runSession(ann);
        readTheUnions(ann, session);
        purchase(ann);
        befriend(ann, bob);
        System.out.println("  Java journey: a guest upgraded, a sign-up, a session, a purchase, a friendship by email: every value as expected");
    }

    // ---- The first steps: how a person arrives --------------------------------------------
    // Ann arrives as a guest and upgrades in place (docs/guests.md); Bob signs up. The steps
    // after this one only need a Person (a verified email for the one who is asked).

    private Person arrive(String name) throws Exception {
        return name.equals("ann") ? guestThenUpgrade(name) : signUp(name);
    }

    /** POST /auth/guest (no email, no password), then POST /me/upgrade: the same id, now with an email. */
    private Person guestThenUpgrade(String name) throws Exception {
        SignedIn guest = api(null).authGuestCreate(null, UUID.randomUUID().toString(),
                new GuestBody().displayName(capitalized(name)));
        Profile before = guest.getUser();
        expect(Boolean.TRUE.equals(before.getGuest()) && before.getEmail() == null, name + " starts as a guest, no email");
        check(name + " plays as a guest (POST /auth/guest)", "id " + before.getId());
        DefaultApi asGuest = api(guest.getToken());
        String email = name + "-" + stamp + "@example.com";
        Upgraded upgraded = asGuest.meUpgrade(new UpgradeBody().email(email).password("correct horse battery"), null,
                UUID.randomUUID().toString());
        Profile after = upgraded.getUser();
        expect(after.getId().equals(before.getId()), name + " keeps the guest's id on upgrading");
        expect(email.equals(after.getEmail()) && Boolean.FALSE.equals(after.getGuest()), name + " is a guest no more");
        check(name + " upgrades in place (POST /me/upgrade)", "same id, " + email);
        return new Person(name, email, after.getId(), asGuest);
    }

    private Person signUp(String name) throws Exception {
        String email = name + "-" + stamp + "@example.com";
        SignedIn signedIn = api(null).authRegister(new RegisterBody().email(email).password("correct horse battery")
                .displayName(capitalized(name)), UUID.randomUUID().toString(), null);
        Profile user = signedIn.getUser();
        expect(email.equals(user.getEmail()), "signed up as " + email + ", the profile says " + user.getEmail());
        expect(user.getBalance() == 0, name + " starts with 0 coins, not " + user.getBalance());
        Person person = new Person(name, email, user.getId(), api(signedIn.getToken()));
        expect(person.api().meGet(null, null).getId().equals(user.getId()), name + "'s token reads their own profile");
        check(name + " signs up (POST /auth/register), the token reads GET /me", "id " + user.getId());
        return person;
    }

    // ---- The steps after arriving -----------------------------------------------------------

    /** Friend requests find verified emails only: the code mailed at sign-up, read from the outbox. */
    private void verifyEmail(Person person) throws Exception {
        String code = psql("select substring(body from 'Your code is ([0-9]{8})') from app.outgoing_mail "
                + "where recipient = '" + person.email() + "' order by id desc limit 1");
        expect(code.matches("[0-9]{8}"), "no sign-up code mailed to " + person.email() + ": '" + code + "'");
        Profile profile = person.api().meEmailVerificationConfirm(new EmailVerifyBody().code(code), UUID.randomUUID().toString(), null);
        expect(Boolean.TRUE.equals(profile.getEmailVerified()), person.name() + "'s email is verified");
        check(person.name() + " confirms the mailed code (POST /me/email/verify)", "email_verified");
    }

    /** A live session started and finished at once: ended, paid by its minutes (none yet). */
    private SessionEnded runSession(Person person) throws Exception {
        SessionStarted started = person.api().focusSessionsStart(new SessionStartBody().plannedMinutes(25), UUID.randomUUID().toString());
        UUID id = started.getSession().getId();
        expect(started.getSession().getEndedAt() == null, "a started session has no end yet");
        expect(Integer.valueOf(25).equals(started.getSession().getPlannedMinutes()), "the session plans 25 minutes");
        // An optional body left null is sent as the JSON `null`, which the server refuses (400
        // invalid_json: a body is an object, or none): an empty SessionFinishBody is `{}`, "now".
        SessionEnded ended = person.api().focusSessionsFinish(id, UUID.randomUUID().toString(), new SessionFinishBody());
        expect(ended.getSession().getId().equals(id), "finishing answers the same session");
        expect(ended.getSession().getEndedAt() != null, "a finished session has its end");
        expect(ended.getBalance() == ended.getSession().getCoinsEarned(),
                "the balance after a first session is what it earned: " + ended.getBalance() + " vs " + ended.getSession().getCoinsEarned());
        SessionEnded again = person.api().focusSessionsFinish(id, UUID.randomUUID().toString(), new SessionFinishBody());
        expect(again.getBalance().equals(ended.getBalance()), "finishing again pays nothing twice");
        check(person.name() + " runs a session (start, finish, finish again)",
                ended.getSession().getMinutes() + " min, balance " + ended.getBalance());
        return ended;
    }

    /**
     * The three answers that are one of two shapes, read by their discriminator (kind): a batch of
     * two offline sessions (one recorded, one refused), and the tips sync in both its bodies.
     */
    private void readTheUnions(Person person, SessionEnded previous) throws Exception {
        // A second after the live session ended, one second long: after the account, never in
        // the future once that second has passed (the server's clock is the database's).
        long start = previous.getSession().getEndedAt().getTime() + 1000;
        Thread.sleep(Math.min(5000, Math.max(0, start + 1500 - System.currentTimeMillis())));
        SessionBatchResults batch = person.api().focusSessionsBatchCreate(new SessionBatchBody().sessions(List.of(
                new SessionBatchItem().id(UUID.randomUUID()).startedAt(new Date(start)).endedAt(new Date(start + 1000)),
                new SessionBatchItem().id(UUID.randomUUID()).startedAt(new Date(start + 1000)).endedAt(new Date(start)))),
                UUID.randomUUID().toString(), null);
        expect(batch.getResults().size() == 2, "one result per item");
        Object first = batch.getResults().get(0).getActualInstance();
        Object second = batch.getResults().get(1).getActualInstance();
        expect(first instanceof SessionBatchApplied applied && "applied".equals(applied.getKind())
                && applied.getBody().getBalance().equals(previous.getBalance()),
                "the session is applied (kind applied), the balance unchanged: " + first);
        expect(second instanceof SessionBatchRejected rejected && "rejected".equals(rejected.getKind())
                && rejected.getStatus() == 422 && "invalid_session".equals(rejected.getProblem().getCode()),
                "the session ending before it starts is rejected (kind rejected), 422 invalid_session: " + second);

        MindfulnessTipsSync200Response ours = person.api().mindfulnessTipsSync(
                new MindfulnessTipsSyncRequest(new KnownIdsBody().knownIds(List.of())), null);
        expect(ours.getActualInstance() instanceof TipSync sync && "tip_sync".equals(sync.getKind()) && !sync.getMissing().isEmpty(),
                "{known_ids: []} answers every tip as a TipSync (kind tip_sync): " + ours.getActualInstance());
        MindfulnessTipsSync200Response original = person.api().mindfulnessTipsSyncOriginal(
                new MindfulnessTipsSyncRequest(new OriginalTipsBody().itemIds(List.of())), null);
        expect(original.getActualInstance() instanceof OriginalTipSync sync && "original_tip_sync".equals(sync.getKind())
                && sync.getMissingItems().size() == ours.getTipSync().getMissing().size(),
                "the original app's {itemIds: []} answers the same tips as an OriginalTipSync: " + original.getActualInstance());
        check(person.name() + " reads the unions by kind: a batch (applied, rejected), the tips sync (both bodies)",
                ours.getTipSync().getMissing().size() + " tips");
    }

    /** 100 coins granted, the cheapest sound bought: the balance drops by its price, once. */
    private void purchase(Person person) throws Exception {
        int before = person.api().meGet(null, null).getBalance();
        psql("select app.grant_coins('" + person.id() + "', 100, 'Java journey')");
        int granted = person.api().meGet(null, null).getBalance();
        expect(granted == before + 100, "the grant shows in GET /me: " + granted + ", not " + (before + 100));

        Catalog catalog = person.api().shopItemsList(null, null);
        // A sound: the shop's own tests add and retire furniture meanwhile.
        Item item = catalog.getSounds().stream().filter(i -> i.getPrice() > 0 && i.getPrice() <= 100)
                .min(Comparator.comparing(Item::getPrice))
                .orElseThrow(() -> new JourneyFailure("no sound priced 1 to 100 coins in the catalog"));
        String key = UUID.randomUUID().toString();
        Purchase bought = person.api().shopPurchasesCreate(new ItemChoiceBody().itemId(item.getId()), key, null);
        expect(bought.getItem().getId().equals(item.getId()), "the purchase names the item bought");
        expect(!bought.getAlreadyOwned(), "a first purchase is not already_owned");
        expect(bought.getBalance() == granted - item.getPrice(),
                "the balance after the purchase is " + bought.getBalance() + ", not " + granted + " - " + item.getPrice());
        Purchase replayed = person.api().shopPurchasesCreate(new ItemChoiceBody().itemId(item.getId()), key, null);
        expect(replayed.getBalance().equals(bought.getBalance()), "the same Idempotency-Key replays the answer, charging nothing");
        expect(person.api().meGet(null, null).getBalance() == granted - item.getPrice(), "GET /me shows the balance after the purchase");
        expect(person.api().meItemsList(null, null, null).getItems().stream().anyMatch(o -> o.getItem().getId().equals(item.getId())),
                "GET /me/items lists the item bought");
        check(person.name() + " buys the cheapest sound (" + item.getPrice() + " coins), then the same request again",
                "balance " + granted + " -> " + bought.getBalance());
    }

    /** Asked by email, accepted: friends on both sides; asking again is 409 already_friends. */
    private void befriend(Person asker, Person asked) throws Exception {
        // The answer is a oneOf (FriendAdded | FriendRequestCreated, 200 and 201 alike): the
        // client reads it by its discriminator, kind.
        FriendRequestsCreate200Response answer = asker.api().friendRequestsCreate(
                new FriendRequestBody().email(asked.email().toUpperCase(java.util.Locale.ROOT)), UUID.randomUUID().toString(), null);
        expect(answer.getActualInstance() instanceof FriendRequestCreated,
                "asking a stranger answers a pending request (kind friend_request), not " + answer.getActualInstance());
        FriendRequestCreated created = answer.getFriendRequestCreated();
        expect("friend_request".equals(created.getKind()), "kind is friend_request");
        expect(created.getRequest().getTo().getId().equals(asked.id()), "the request is to " + asked.name());

        FriendRequests pending = asked.api().friendRequestsList(null);
        List<IncomingFriendRequest> incoming = pending.getIncoming().stream()
                .filter(r -> r.getId().equals(created.getRequest().getId())).toList();
        expect(incoming.size() == 1 && incoming.get(0).getFrom().getId().equals(asker.id()),
                asked.name() + " sees the request from " + asker.name());

        FriendAdded added = asked.api().friendRequestsAccept(created.getRequest().getId(), UUID.randomUUID().toString(), null);
        expect("friend_added".equals(added.getKind()), "accepting answers kind friend_added");
        expect(added.getFriend().getId().equals(asker.id()), "the new friend is " + asker.name());
        expect(asker.api().friendsList(null, null, null, null).getFriends().stream().anyMatch(f -> f.getId().equals(asked.id())),
                asker.name() + "'s friends list " + asked.name());
        expect(asked.api().friendsList(null, null, null, null).getFriends().stream().anyMatch(f -> f.getId().equals(asker.id())),
                asked.name() + "'s friends list " + asker.name());
        expect(asked.api().friendRequestsList(null).getIncoming().isEmpty(), "no request is left pending");

        try {
            asker.api().friendRequestsCreate(new FriendRequestBody().email(asked.email()), UUID.randomUUID().toString(), null);
            throw new JourneyFailure("asking a friend again was not refused");
        } catch (ApiException refused) {
            Problem problem = new ApiClient().getObjectMapper().readValue(refused.getResponseBody(), Problem.class);
            expect(refused.getCode() == 409 && "already_friends".equals(problem.getCode()),
                    "asking a friend again is 409 already_friends, not " + refused.getCode() + " " + problem.getCode());
        }
        check(asker.name() + " asks " + asked.name() + " by email, " + asked.name() + " accepts; asking again",
                "friends both ways, then 409 already_friends");
    }

    // ---- Plumbing ----------------------------------------------------------------------------

    /** The generated API at baseUrl, sending the bearer token when there is one. */
    private DefaultApi api(String token) {
        ApiClient client = new ApiClient();
        client.updateBaseUri(baseUrl);
        if (token != null) {
            client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + token));
        }
        return new DefaultApi(client);
    }

    /** One statement's single value, by psql as the database owner. */
    private String psql(String statement) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("psql", "-X", "-qAt", "-v", "ON_ERROR_STOP=1", ownerDatabaseUrl, "-c", statement)
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new JourneyFailure("psql failed: " + output);
        }
        return output;
    }

    private static void expect(boolean condition, String what) {
        if (!condition) {
            throw new JourneyFailure(what);
        }
    }

    /** A line of the check list, as scripts/lib/common.sh's check prints it. */
    private static void check(String what, String result) {
        System.out.printf("  %-92s %s%n", what, result);
    }

    private static String capitalized(String name) {
        return Character.toUpperCase(name.charAt(0)) + name.substring(1);
    }

    static final class JourneyFailure extends RuntimeException {
        JourneyFailure(String message) {
            super(Objects.requireNonNull(message));
        }
    }
}
