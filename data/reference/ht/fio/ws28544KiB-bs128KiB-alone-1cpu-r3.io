rchar: 33920715221
wchar: 5980
syscr: 258984
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
