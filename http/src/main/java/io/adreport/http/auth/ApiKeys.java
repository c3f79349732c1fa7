package io.adreport.http.auth;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.meta.ApiKeyStore;
import io.adreport.schema.meta.KeyRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import io.adreport.schema.threads.DaemonThreads;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * API keys: creation, revocation, listing and the lookup every {@code /v1} request makes.
 *
 * <p><b>Keys.</b> {@value #PREFIX} followed by 32 bytes (256 bits) of {@link SecureRandom},
 * base64url without padding. Only the SHA-256 of the whole key (hex) is stored, in the meta
 * table ({@link ApiKeyStore#putKey}); the key itself is shown once, by {@link #create}. A plain
 * hash is enough (no salt or stretching) because the key is random with 256 bits of entropy,
 * not a password.
 *
 * <p><b>Cache.</b> Lookups, positive and negative, are cached for {@code ttl} (setting
 * {@code report.key.cache.ms}, default 2 s) so that a report does not cost a meta-table read.
 * The price: a key revoked by another process keeps working for at most {@code ttl}; one revoked
 * through this instance stops at once. The cache holds at most {@code maxEntries}; when full it
 * is emptied (simple, bounded, and a refill costs one get per active key).
 *
 * <p><b>Refresh in the background.</b> An expired entry whose last read is younger than
 * {@code staleFor} is answered at once and read again on a refresher thread, so no request waits
 * for the meta table once its key has been seen: a bid-path request keeps its own deadline
 * ({@code serve.deadline.ms}) even when the meta table's region server has stopped (it used to pay
 * the lookup deadline, {@code report.key.lookup.ms}, on top, once per key and {@code ttl}). A key
 * revoked by another process therefore keeps working for at most {@code ttl} plus one lookup.
 * Only a key never seen, or one whose last read is older than {@code staleFor}, is looked up on the
 * request thread.
 *
 * <p><b>When the meta table does not answer.</b> The store reads under a short deadline
 * ({@code report.key.lookup.ms}). If a refresh fails (a region server holding the meta table
 * stopped or gone), the last known answer keeps serving for up to {@code staleFor} after it was
 * last read ({@code report.key.stale.ms}) and the next refresh is tried one {@code ttl} later. A key
 * never seen before still fails (503): it has no last known answer; so does one past
 * {@code staleFor}. Counted by {@link #staleAnswers()}.
 *
 * <p><b>Concurrency.</b> Thread-safe: a concurrent map of immutable entries. An expired entry is
 * refreshed by the one thread that replaces it with an extended copy (it hands the lookup to the
 * refresher pool: {@value #REFRESHERS} daemon threads, {@value #REFRESH_QUEUE} waiting refreshes; a
 * refresh that does not fit is dropped and tried one {@code ttl} later); others answer from that
 * copy meanwhile (at most one lookup per key at a time). Two threads missing a key never seen
 * both read the meta table, which is harmless.
 */
public final class ApiKeys {
    public static final String PREFIX = "ak_";
    private static final int KEY_BYTES = 32;
    static final int REFRESHERS = 2;
    static final int REFRESH_QUEUE = 1024;
    /** SHA-256 per thread: {@code MessageDigest.getInstance} looks the provider up on every call. */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    });
    /** Background refreshes of expired entries, shared by the process's instances (one per service). */
    private static final ThreadPoolExecutor REFRESH = refresher();

    /** A stored key, without the key itself. */
    public record KeyInfo(String hash, String role, Instant createdAt, Instant revokedAt) {
        public boolean active() {
            return revokedAt == null;
        }
    }

    /** A lookup's answer, used until {@code expires}, last read from the meta table at {@code read}. */
    private record Cached(Optional<Role> role, Instant expires, Instant read) {
    }

    private final ApiKeyStore meta;
    private final Cube cube;
    private final Clock clock;
    private final Duration ttl;
    private final int maxEntries;
    private final Duration staleFor;
    private final SecureRandom random = new SecureRandom();
    private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();
    private final LongAdder lookups = new LongAdder();
    private final LongAdder staleAnswers = new LongAdder();

    /**
     * @param meta       the key store; its deadline bounds each lookup
     * @param ttl        how long a lookup's answer is used before it is read again
     * @param maxEntries most cached answers
     * @param staleFor   how long after it was last read an answer still serves while the meta table
     *                   does not answer (zero: never)
     */
    public ApiKeys(ApiKeyStore meta, Cube cube, Clock clock, Duration ttl, int maxEntries, Duration staleFor) {
        this.meta = meta;
        this.cube = cube;
        this.clock = clock;
        this.ttl = ttl;
        this.maxEntries = maxEntries;
        this.staleFor = staleFor;
    }

    /**
     * Creates a key for {@code role} ({@code analyst}, {@code advertiser:ID}, ...).
     *
     * @return the key; it is not stored and cannot be shown again
     * @throws IllegalArgumentException when the role is malformed
     */
    public String create(String role) {
        Role parsed = Role.parse(role, cube);
        byte[] bytes = new byte[KEY_BYTES];
        random.nextBytes(bytes);
        String key = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        meta.putKey(hash(key), parsed.toString());
        return key;
    }

    /**
     * Revokes a key given as the key itself or as a prefix (at least 8 hex digits) of its hash,
     * as {@link #list} shows it.
     *
     * @return the hash revoked
     * @throws IllegalArgumentException when nothing or more than one key matches
     */
    public String revoke(String keyOrHashPrefix) {
        String hash;
        if (keyOrHashPrefix.startsWith(PREFIX)) {
            hash = hash(keyOrHashPrefix);
            if (meta.key(hash).isEmpty()) {
                throw new IllegalArgumentException("no such key");
            }
        } else {
            String prefix = keyOrHashPrefix.toLowerCase(java.util.Locale.ROOT);
            if (!prefix.matches("[0-9a-f]{8,64}")) {
                throw new IllegalArgumentException("give the key (" + PREFIX + "...) or at least 8 hex digits of its hash");
            }
            List<String> matches = meta.keys().stream().map(KeyRecord::hash).filter(h -> h.startsWith(prefix)).toList();
            if (matches.size() != 1) {
                throw new IllegalArgumentException(matches.isEmpty() ? "no key hash starts with " + prefix
                        : matches.size() + " key hashes start with " + prefix + "; give more digits");
            }
            hash = matches.get(0);
        }
        meta.revokeKey(hash);
        cache.remove(hash);
        return hash;
    }

    /**
     * The key kept in {@code file} (e.g. {@code DATA_DIR/analyst.key} of the local stack) if it
     * still works, else a new key for {@code role}, written there with mode 600 (owner only)
     * through a temporary file and an atomic rename, so a crash never leaves half a key.
     *
     * @return the key and whether it was created now
     */
    public KeyFile ensureKeyFile(Path file, String role) throws IOException {
        if (Files.isRegularFile(file)) {
            String existing = Files.readString(file, StandardCharsets.UTF_8).trim();
            if (authenticate(existing).filter(r -> r.toString().equals(Role.parse(role, cube).toString())).isPresent()) {
                return new KeyFile(existing, false);
            }
        }
        String key = create(role);
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".key", ".tmp");
        try {
            if (Files.getFileStore(tmp).supportsFileAttributeView("posix")) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            }
            Files.writeString(tmp, key + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return new KeyFile(key, true);
    }

    /** A key read from or written to a key file. */
    public record KeyFile(String key, boolean created) {
    }

    public List<KeyInfo> list() {
        return meta.keys().stream().map(k -> new KeyInfo(k.hash(), k.role(), k.createdAt(), k.revokedAt())).toList();
    }

    /**
     * The role of an active key, or empty for an unknown, revoked or malformed one.
     *
     * @throws java.io.UncheckedIOException when the meta table does not answer and there is no last
     *                                      known answer young enough to serve
     */
    public Optional<Role> authenticate(String key) {
        if (!wellFormed(key)) {
            return Optional.empty();
        }
        String hash = hash(key);
        Instant now = clock.instant();
        Cached c = cache.get(hash);
        if (c != null && now.isBefore(c.expires())) {
            return c.role();
        }
        if (c != null && !cache.replace(hash, c, new Cached(c.role(), now.plus(ttl), c.read()))) {
            Cached other = cache.get(hash); // another thread refreshes it: answer from its entry
            if (other != null) {
                return other.role();
            }
        }
        if (c != null && now.isBefore(c.read().plus(staleFor))) {
            try {
                REFRESH.execute(() -> refresh(hash, c));
            } catch (RejectedExecutionException full) {
                // dropped: the extended entry serves, the next refresh is one ttl later
            }
            return c.role();
        }
        return lookup(hash, c, now);
    }

    /** The background refresh of {@code hash}, whose last known answer is {@code last}. */
    private void refresh(String hash, Cached last) {
        try {
            lookup(hash, last, clock.instant());
        } catch (UncheckedIOException e) {
            // the last answer passed staleFor meanwhile: its entry is gone, the next request looks the key up itself
        } catch (RuntimeException e) {
            // any other failure of the store: as a silent meta table, the extended entry serves until the next refresh
            staleAnswers.increment();
            org.slf4j.LoggerFactory.getLogger(ApiKeys.class).warn("refreshing an API key failed; its last answer keeps serving", e);
        }
    }

    /** Reads {@code hash} from the meta table and caches the answer; on failure the last known answer within staleFor. */
    private Optional<Role> lookup(String hash, Cached c, Instant now) {
        lookups.increment();
        Optional<Role> role;
        try {
            role = meta.key(hash).filter(KeyRecord::active).flatMap(this::roleOf);
        } catch (UncheckedIOException e) {
            if (c != null && now.isBefore(c.read().plus(staleFor))) {
                staleAnswers.increment();
                return c.role(); // the extended entry stays: the next refresh is one ttl later
            }
            cache.remove(hash);
            throw e;
        }
        if (cache.size() >= maxEntries) {
            cache.clear();
        }
        cache.put(hash, new Cached(role, now.plus(ttl), now));
        return role;
    }

    /** Meta-table lookups made (cache misses and refreshes). */
    public long lookups() {
        return lookups.sum();
    }

    /** Refreshes (and lookups) the meta table did not answer, answered from the last known answer instead. */
    public long staleAnswers() {
        return staleAnswers.sum();
    }

    private Optional<Role> roleOf(KeyRecord k) {
        try {
            return Optional.of(Role.parse(k.role(), cube));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // a role of another cube: no access rather than a guess
        }
    }

    /**
     * Whether {@code key} can be a key at all ({@value #PREFIX}, at most 128 characters); one that
     * cannot is unknown without a lookup.
     */
    public static boolean wellFormed(String key) {
        return key != null && key.startsWith(PREFIX) && key.length() <= 128;
    }

    /** SHA-256 of the key, lower-case hex: what the meta table stores. */
    public static String hash(String key) {
        return HexFormat.of().formatHex(SHA_256.get().digest(key.getBytes(StandardCharsets.UTF_8)));
    }

    private static ThreadPoolExecutor refresher() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(REFRESHERS, REFRESHERS, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(REFRESH_QUEUE), DaemonThreads.numbered("adreport-key-refresh"));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
