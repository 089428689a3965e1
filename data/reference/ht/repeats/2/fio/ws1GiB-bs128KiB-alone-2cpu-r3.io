rchar: 55379692049
wchar: 11283
syscr: 422705
syscw: 3
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
