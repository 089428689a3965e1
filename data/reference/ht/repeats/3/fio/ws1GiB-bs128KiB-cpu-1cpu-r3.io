rchar: 22641486819
wchar: 13657
syscr: 172959
syscw: 5
read_bytes: 122880
write_bytes: 28672
cancelled_write_bytes: 0
