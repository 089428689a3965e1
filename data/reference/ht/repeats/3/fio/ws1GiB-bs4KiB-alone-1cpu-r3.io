rchar: 11910290370
wchar: 13661
syscr: 2907976
syscw: 5
read_bytes: 45056
write_bytes: 8192
cancelled_write_bytes: 0
