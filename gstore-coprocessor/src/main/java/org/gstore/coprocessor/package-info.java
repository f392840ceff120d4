/**
 * G-Store's region-server side as an operator installs it: {@link org.gstore.coprocessor.GStoreRegionCoprocessor}
 * (one per region: endpoint, fencing), {@link org.gstore.coprocessor.GStoreMasterObserver} (schema guard) and
 * {@link org.gstore.coprocessor.config.GStoreConfig} (every {@code gstore.*} key). It hands HBase's callbacks to
 * {@code server} and {@code endpoint}; the subpackages hold everything else.
 */
package org.gstore.coprocessor;
