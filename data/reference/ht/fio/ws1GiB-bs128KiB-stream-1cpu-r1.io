rchar: 49248971698
wchar: 13659
syscr: 375959
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
