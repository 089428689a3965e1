rchar: 39988997111
wchar: 13661
syscr: 305310
syscw: 5
read_bytes: 0
write_bytes: 45056
cancelled_write_bytes: 0
