rchar: 60025670235
wchar: 11284
syscr: 458169
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
