/*
 * module.h — the generator subsystem as the module starts it
 */
#ifndef FLAKEID_MODULE_H
#define FLAKEID_MODULE_H

/*
 * From _PG_init while preloading: every generator module's settings, its
 * part of shared memory, the WAL resource manager and the renewer.
 */
extern void generator_module_init(void);

#endif
