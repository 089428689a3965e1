rchar: 40312220681
wchar: 13663
syscr: 307778
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
