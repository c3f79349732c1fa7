package io.adreport.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The one place that knows where tests find event data files. Every format comes in two files,
 * and a test runs the same assertions on both:
 * <ul>
 *   <li><b>a committed sample</b> — a few dozen rows in the exact format of the public data set,
 *       written for this project with made-up values and kept in this module's resources. It is
 *       always there, so every format is tested in a bare clone;</li>
 *   <li><b>the public data set</b> — real, externally written data, not part of the repository.
 *       It is looked for in {@code -Dadreport.datasets=DIR}, else in the environment variable
 *       {@code ADREPORT_DATASETS}, else in {@code ../shared/datasets} beside the clone. A
 *       relative DIR is taken from the repository root (the directory holding
 *       {@code bin/adreport}, found by walking up from the working directory), so it means the
 *       same from the command line as inside a module's test JVM. When the file is absent, the
 *       test that asks for it is skipped with a message saying where it looked, or fails under
 *       {@link Prerequisites#strict() strict mode}.</li>
 * </ul>
 * Tests take the pair as parameters: {@code @ParameterizedTest(name = "{0}")} with
 * {@code @MethodSource} returning {@link #of(Format)}, and read {@link DataFile#path()}.
 */
public final class Datasets {
    /** System property naming the folder of the public data sets. */
    public static final String PROPERTY = "adreport.datasets";
    /** Environment variable with the same meaning (the property wins). */
    public static final String ENV = "ADREPORT_DATASETS";
    /** Where the public data sets are looked for when neither is set, from the repository root. */
    public static final String DEFAULT = "../shared/datasets";
    /** The file whose presence marks the repository root. */
    private static final String ROOT_MARKER = "bin/adreport";
    private static final String SAMPLES = "datasets/";
    private static final Map<Format, Path> EXTRACTED = new EnumMap<>(Format.class);

    /** The data formats, each with its public file and its committed sample. */
    public enum Format {
        /** Avazu CTR CSV: one row per impression, {@code click} 0/1, {@code hour} YYMMDDHH. */
        AVAZU("avazu-sample-9k.csv", 8_999, "avazu-madeup.csv", 40),
        /** TalkingData AdTracking CSV (CRLF line ends): one row per click, downloads attributed. */
        TALKINGDATA("talkingdata-clicks-100k.csv", 100_000, "talkingdata-madeup.csv", 60),
        /** Apache Druid's wikiticker stream: gzipped NDJSON of Wikipedia edits. */
        WIKITICKER("wikiticker-2015-09-12-sampled.json.gz", 39_244, "wikiticker-madeup.json.gz", 40);

        private final String publicName;
        private final int publicRows;
        private final String sampleName;
        private final int sampleRows;

        Format(String publicName, int publicRows, String sampleName, int sampleRows) {
            this.publicName = publicName;
            this.publicRows = publicRows;
            this.sampleName = sampleName;
            this.sampleRows = sampleRows;
        }
    }

    /**
     * One data file.
     *
     * @param format    its format
     * @param name      its file name
     * @param committed true for the committed sample, false for the public data set
     * @param rows      how many records it holds (lines, not counting a CSV header)
     */
    public record DataFile(Format format, String name, boolean committed, int rows) {
        /**
         * Where the file is. The committed sample is always there; for the public data set, the
         * calling test is skipped (or fails in strict mode) when it is absent.
         */
        public Path path() {
            return committed ? extracted(format) : require(format);
        }

        /** What a test report shows for this parameter. */
        @Override
        public String toString() {
            return (committed ? "committed sample " : "public data set ") + name;
        }
    }

    private Datasets() {
    }

    /** The committed sample, then the public data set, of one format. */
    public static Stream<DataFile> of(Format format) {
        return Stream.of(sample(format), publicSet(format));
    }

    /** The committed sample of a format. */
    public static DataFile sample(Format format) {
        return new DataFile(format, format.sampleName, true, format.sampleRows);
    }

    /** The public data set of a format. */
    public static DataFile publicSet(Format format) {
        return new DataFile(format, format.publicName, false, format.publicRows);
    }

    /** The folder of the public data sets, if it can be named (see the class comment). */
    public static Optional<Path> directory() {
        String configured = configured();
        Optional<Path> root = repositoryRoot();
        if (configured != null) {
            Path dir = Path.of(configured);
            return Optional.of((dir.isAbsolute() ? dir : root.map(r -> r.resolve(dir)).orElse(dir.toAbsolutePath())).normalize());
        }
        return root.map(r -> r.resolve(DEFAULT).normalize());
    }

    /** The repository root: the nearest directory at or above the working directory holding {@code bin/adreport}. */
    public static Optional<Path> repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(ROOT_MARKER))) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    private static String configured() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            value = System.getenv(ENV);
        }
        return value == null || value.isBlank() ? null : value.trim();
    }

    private static String origin() {
        if (System.getProperty(PROPERTY) != null && !System.getProperty(PROPERTY).isBlank()) {
            return "-D" + PROPERTY;
        }
        return configured() != null ? ENV : "the default " + DEFAULT + " beside the clone";
    }

    private static Path require(Format format) {
        Optional<Path> dir = directory();
        Path file = dir.map(d -> d.resolve(format.publicName)).orElse(null);
        String how = "; point -D" + PROPERTY + "=DIR or " + ENV + "=DIR at the folder of the public data sets"
                + " (the committed sample of this format is tested either way)";
        if (file == null) {
            Prerequisites.require(false, "public data set " + format.publicName + ": no " + ROOT_MARKER + " above "
                    + Path.of("").toAbsolutePath() + ", so " + DEFAULT + " beside the clone cannot be located" + how);
        } else {
            Prerequisites.require(Files.isRegularFile(file), "public data set " + format.publicName + " is not in "
                    + dir.get() + " (from " + origin() + ")" + how);
        }
        return file;
    }

    /** The committed sample as a file (resources may sit in a jar), copied out once per JVM. */
    private static synchronized Path extracted(Format format) {
        Path file = EXTRACTED.get(format);
        if (file != null) {
            return file;
        }
        try (InputStream in = Datasets.class.getResourceAsStream(SAMPLES + format.sampleName)) {
            if (in == null) {
                throw new IllegalStateException("committed sample " + SAMPLES + format.sampleName + " is missing from the testkit");
            }
            Path dir = Files.createTempDirectory("adreport-samples");
            file = dir.resolve(format.sampleName);
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            dir.toFile().deleteOnExit();
            file.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        EXTRACTED.put(format, file);
        return file;
    }
}
