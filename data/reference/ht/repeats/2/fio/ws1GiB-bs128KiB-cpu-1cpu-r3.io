rchar: 24249084871
wchar: 13661
syscr: 185224
syscw: 5
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
