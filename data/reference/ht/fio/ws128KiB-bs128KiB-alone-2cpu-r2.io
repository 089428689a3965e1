rchar: 121842019376
wchar: 18980
syscr: 929800
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
