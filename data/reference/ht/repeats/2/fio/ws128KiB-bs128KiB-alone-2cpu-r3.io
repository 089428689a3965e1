rchar: 157428198522
wchar: 18986
syscr: 1201321
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
