package io.adreport.launcher.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The simulated ad network: advertisers with campaigns and creatives, publishers with zones, and an
 * audience of devices spread over countries and device types. The catalogue is fixed (it does not
 * depend on the seed) so that the launcher can print a demo advertiser key before traffic starts,
 * and a restart sees the same tenants.
 *
 * <p>Popularity is skewed the way real traffic is: advertisers, campaigns, publishers, zones,
 * countries and device types are drawn from Zipf-like distributions (rank r has weight 1/r^s).
 * Each creative has a click-through rate between 0.1% and 2% (by format: video and native cards
 * are clicked far more often than leaderboards), scaled by the zone it is shown in; each campaign
 * has its own conversion rate after a click. Immutable and thread-safe.
 */
final class AdNetwork {
    static final double MIN_CTR = 0.001;
    static final double MAX_CTR = 0.02;
    static final int DEVICES = 50_000;

    /** @param conversionRate the chance that a click on this creative leads to a conversion (the campaign's) */
    record Creative(String advertiser, String campaign, String id, double ctr, double conversionRate) {
        Creative {
            if (!(ctr >= MIN_CTR && ctr <= MAX_CTR)) {
                throw new IllegalArgumentException("ctr of " + id + " must be within [" + MIN_CTR + ", " + MAX_CTR + "], got " + ctr);
            }
            if (!(conversionRate >= 0 && conversionRate <= 1)) {
                throw new IllegalArgumentException("conversionRate of " + id + " must be within [0, 1], got " + conversionRate);
            }
        }
    }

    record Campaign(String advertiser, String id, List<Creative> creatives, Zipf creativePick) {
        Campaign {
            creatives = List.copyOf(creatives);
        }
    }

    record Advertiser(String id, List<Campaign> campaigns, Zipf campaignPick) {
        Advertiser {
            campaigns = List.copyOf(campaigns);
        }
    }

    /** @param cpmMicros price of a thousand impressions in this zone, micros, before the country factor */
    record Zone(String publisher, String id, long cpmMicros, double ctrFactor) {}

    record Publisher(String id, List<Zone> zones, Zipf zonePick) {
        Publisher {
            zones = List.copyOf(zones);
        }
    }

    /** A device's stable traits: one device always reports the same country and device type. */
    record Device(String id, String country, String deviceType) {}

    private record Format(String suffix, double ctr) {}

    private static final List<Format> FORMATS = List.of(
            new Format("banner-300x250", 0.004),
            new Format("leaderboard-728x90", 0.0015),
            new Format("mobile-320x50", 0.0025),
            new Format("native-card", 0.008),
            new Format("video-15s", 0.013));

    private record ZoneKind(String id, long cpmMicros, double ctrFactor) {}

    private static final List<ZoneKind> ZONE_KINDS = List.of(
            new ZoneKind("home-top", 4_000_000, 1.2),
            new ZoneKind("article-inline", 2_500_000, 1.1),
            new ZoneKind("sidebar", 1_200_000, 0.7),
            new ZoneKind("video-preroll", 9_000_000, 1.3),
            new ZoneKind("footer", 600_000, 0.5),
            new ZoneKind("app-interstitial", 6_000_000, 1.5));

    private static final String[][] ADVERTISERS = {
            {"acme-outdoor", "spring-hiking", "tent-clearance", "brand-awareness"},
            {"bluewave-travel", "city-breaks", "summer-flights", "last-minute"},
            {"northwind-foods", "meal-kits", "organic-launch"},
            {"pixelforge-games", "launch-trailer", "season-pass", "retargeting"},
            {"solara-energy", "home-solar", "ev-charger"},
    };

    private static final String[] PUBLISHERS = {
            "dailyherald", "techpulse", "cookbook-corner", "matchday",
            "wanderlust-blog", "gamersden", "marketwatchers", "weatherly",
    };

    /** Ordered by popularity (rank 1 first); premium markets pay more per impression. */
    private static final String[] COUNTRIES = {
            "US", "IN", "GB", "DE", "BR", "FR", "JP", "CA", "MX", "ES", "IT", "AU", "NL", "PL", "SE",
    };
    private static final List<String> PREMIUM = List.of("US", "GB", "DE", "CA", "AU", "NL", "SE", "JP", "FR");

    private static final String[] DEVICE_TYPES = {"mobile", "desktop", "tablet", "ctv"};

    static final AdNetwork DEFAULT = new AdNetwork();

    private final List<Advertiser> advertisers;
    private final List<Publisher> publishers;
    private final Zipf advertiserPick = new Zipf(ADVERTISERS.length, 1.0);
    private final Zipf publisherPick = new Zipf(PUBLISHERS.length, 1.0);
    private final Zipf countryPick = new Zipf(COUNTRIES.length, 1.1);
    private final Zipf deviceTypePick = new Zipf(DEVICE_TYPES.length, 1.3);

    private AdNetwork() {
        List<Advertiser> ads = new ArrayList<>();
        int campaignNo = 0;
        for (String[] row : ADVERTISERS) {
            List<Campaign> campaigns = new ArrayList<>();
            for (int c = 1; c < row.length; c++, campaignNo++) {
                // Each campaign runs two or three formats, and performs a little better or worse than its format.
                double factor = 0.7 + 0.15 * (campaignNo % 5);
                double conversionRate = 0.02 + 0.02 * ((campaignNo + 2) % 5); // 2% .. 10% of clicks
                int formats = campaignNo % 2 == 0 ? 3 : 2;
                List<Creative> creatives = new ArrayList<>();
                for (int f = 0; f < formats; f++) {
                    Format format = FORMATS.get((campaignNo + 2 * f) % FORMATS.size());
                    creatives.add(new Creative(row[0], row[c], row[c] + "-" + format.suffix(),
                            clampCtr(format.ctr() * factor), conversionRate));
                }
                campaigns.add(new Campaign(row[0], row[c], creatives, new Zipf(creatives.size(), 0.6)));
            }
            ads.add(new Advertiser(row[0], campaigns, new Zipf(campaigns.size(), 1.0)));
        }
        this.advertisers = List.copyOf(ads);

        List<Publisher> pubs = new ArrayList<>();
        for (int p = 0; p < PUBLISHERS.length; p++) {
            int zoneCount = 2 + p % 3;
            List<Zone> zones = new ArrayList<>();
            for (int z = 0; z < zoneCount; z++) {
                ZoneKind kind = ZONE_KINDS.get((p + z) % ZONE_KINDS.size());
                zones.add(new Zone(PUBLISHERS[p], kind.id(), kind.cpmMicros(), kind.ctrFactor()));
            }
            pubs.add(new Publisher(PUBLISHERS[p], zones, new Zipf(zones.size(), 0.8)));
        }
        this.publishers = List.copyOf(pubs);
    }

    List<Advertiser> advertisers() {
        return advertisers;
    }

    List<Publisher> publishers() {
        return publishers;
    }

    /** Every campaign as {@code advertiser/campaign} (the serving API's name for it). */
    List<String> campaignKeys() {
        return advertisers.stream().flatMap(a -> a.campaigns().stream()).map(c -> c.advertiser() + "/" + c.id()).toList();
    }

    List<String> advertiserIds() {
        return advertisers.stream().map(Advertiser::id).toList();
    }

    List<String> publisherIds() {
        return publishers.stream().map(Publisher::id).toList();
    }

    /** The creative with this id, or null. */
    Creative creative(String id) {
        for (Advertiser a : advertisers) {
            for (Campaign c : a.campaigns()) {
                for (Creative cr : c.creatives()) {
                    if (cr.id().equals(id)) {
                        return cr;
                    }
                }
            }
        }
        return null;
    }

    Creative pickCreative(RandomGenerator rng) {
        Advertiser a = advertisers.get(advertiserPick.sample(rng));
        Campaign c = a.campaigns().get(a.campaignPick().sample(rng));
        return c.creatives().get(c.creativePick().sample(rng));
    }

    Zone pickZone(RandomGenerator rng) {
        Publisher p = publishers.get(publisherPick.sample(rng));
        return p.zones().get(p.zonePick().sample(rng));
    }

    /** Heavy users exist: device i is drawn with density falling like 1/sqrt(i). */
    Device pickDevice(RandomGenerator rng) {
        double u = rng.nextDouble();
        return device((int) (DEVICES * u * u));
    }

    /** The device's traits come from a fixed hash of its number, not from the seed: stable across runs. */
    Device device(int index) {
        long h = mix64(index * 0x9E3779B97F4A7C15L + 0x5DEECE66DL);
        double u1 = (h >>> 11) * 0x1.0p-53;
        double u2 = (mix64(h) >>> 11) * 0x1.0p-53;
        return new Device("dev-" + Integer.toString(index, 36), COUNTRIES[countryPick.at(u1)], DEVICE_TYPES[deviceTypePick.at(u2)]);
    }

    /** Premium markets pay about three times as much per impression as the rest. */
    static double countryPriceFactor(String country) {
        return PREMIUM.contains(country) ? 1.4 : 0.45;
    }

    /** The chance that an impression of this creative in this zone is clicked, within [0.1%, 2%]. */
    static double clickThroughRate(Creative creative, Zone zone) {
        return clampCtr(creative.ctr() * zone.ctrFactor());
    }

    private static double clampCtr(double ctr) {
        return Math.max(MIN_CTR, Math.min(MAX_CTR, ctr));
    }

    /** Stafford variant 13 of the SplitMix64 finalizer: a well-mixed 64-bit hash. */
    static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Zipf-like choice among n ranks: rank r (0-based) has weight 1/(r+1)^s. Immutable. */
    static final class Zipf {
        private final double[] cumulative;

        Zipf(int n, double s) {
            if (n < 1) {
                throw new IllegalArgumentException("a Zipf distribution needs at least one rank, got " + n);
            }
            cumulative = new double[n];
            double total = 0;
            for (int r = 0; r < n; r++) {
                total += 1 / Math.pow(r + 1, s);
                cumulative[r] = total;
            }
            for (int r = 0; r < n; r++) {
                cumulative[r] /= total;
            }
        }

        int sample(RandomGenerator rng) {
            return at(rng.nextDouble());
        }

        /** The rank for a uniform draw u in [0, 1). */
        int at(double u) {
            int lo = 0;
            int hi = cumulative.length - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (u < cumulative[mid]) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo;
        }
    }
}
