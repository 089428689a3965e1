rchar: 115508227080
wchar: 18980
syscr: 881478
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
