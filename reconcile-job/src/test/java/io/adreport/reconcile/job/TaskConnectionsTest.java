package io.adreport.reconcile.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The local runner's tasks borrow the submitter's connection and leave it open; other tasks open their own. */
@ExtendWith(HBaseExtension.class)
class TaskConnectionsTest {

    @Test
    void a_task_of_a_local_job_borrows_the_lent_connection_and_does_not_close_it(MiniHBase hbase) throws Exception {
        Configuration job = new Configuration(hbase.configuration());
        try (Connection submitter = ConnectionFactory.createConnection(hbase.configuration())) {
            int before = TaskConnections.lent();
            try (TaskConnections.Registration lent = TaskConnections.share(job, submitter)) {
                Configuration task = new Configuration(job); // what a task of the job reads
                try (TaskConnections.Lease lease = TaskConnections.open(task)) {
                    assertSame(submitter, lease.connection());
                    assertFalse(lease.owned());
                }
                assertFalse(submitter.isClosed(), "a borrowed connection stays open when the task ends");
                assertEquals(before + 1, TaskConnections.lent());
            }
            assertEquals(before, TaskConnections.lent(), "the loan ends with the job");
            TaskConnections.Lease own = TaskConnections.open(job); // the token names no loan any more
            try (own) {
                assertNotSame(submitter, own.connection());
                assertTrue(own.owned());
            }
            assertTrue(own.connection().isClosed(), "a task closes the connection it opened");
            assertFalse(submitter.isClosed());
        }
    }

    @Test
    void a_task_without_a_loan_opens_its_own_connection(MiniHBase hbase) throws Exception {
        TaskConnections.Lease own = TaskConnections.open(new Configuration(hbase.configuration()));
        try (own) {
            assertTrue(own.owned());
            assertFalse(own.connection().isClosed());
        }
        assertTrue(own.connection().isClosed());
    }
}
