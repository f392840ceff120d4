/**
 * A leaf: the concurrency helpers the layers share, such as
 * {@link org.gstore.coprocessor.concurrent.BatchingThread}, the worker that drains a queue in batches and survives
 * any exception. Calls nothing of G-Store's region-server side.
 */
package org.gstore.coprocessor.concurrent;
